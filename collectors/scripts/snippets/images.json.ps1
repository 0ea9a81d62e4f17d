if (Get-Command docker -ErrorAction SilentlyContinue) {
    $ids = @(docker images -q --no-trunc | Select-Object -Unique)
    if ($ids.Count) { docker image inspect $ids } else { '[]' }
} elseif (Get-Command crictl -ErrorAction SilentlyContinue) {
    $ids = @((crictl images -q) | Select-Object -Unique)
    if ($ids.Count) { crictl inspecti -o json $ids } else { '[]' }
} else {
    throw 'neither docker nor crictl is on the PATH'
}
