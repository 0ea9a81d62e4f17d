# wts:may-hang: docker and crictl block when the runtime's named pipe does not answer.
# The runtime is chosen by its running service, as in containers.json; crictl gets both
# endpoints explicitly (older crictl warns "image connect using default endpoints" otherwise).
$running = @(Get-Service -Name 'docker', 'containerd' -ErrorAction SilentlyContinue | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name })
$cri = 'npipe:////./pipe/containerd-containerd'
if ($running -contains 'docker' -or (-not $running.Count -and (Get-Command docker -ErrorAction SilentlyContinue))) {
    $ids = @(docker images -q --no-trunc | Select-Object -Unique)
    if ($ids.Count) { docker image inspect $ids } else { '[]' }
} elseif (Get-Command crictl -ErrorAction SilentlyContinue) {
    $ids = @((crictl --runtime-endpoint $cri --image-endpoint $cri images -q) | Select-Object -Unique)
    if ($ids.Count) { crictl --runtime-endpoint $cri --image-endpoint $cri inspecti -o json $ids } else { '[]' }
} else {
    throw 'neither docker nor crictl is on the PATH'
}
