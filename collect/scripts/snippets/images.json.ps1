# wts:may-hang: docker and crictl block when the runtime's named pipe does not answer.
# The runtime is chosen by its running service and crictl gets containerd's endpoints
# explicitly, as in containers.json (older crictl warns "image connect using default
# endpoints" without an image endpoint).
$running = @(Get-Service -Name 'docker', 'containerd' -ErrorAction SilentlyContinue | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name })
$env:CONTAINER_RUNTIME_ENDPOINT = 'npipe:////./pipe/containerd-containerd'
$env:IMAGE_SERVICE_ENDPOINT = $env:CONTAINER_RUNTIME_ENDPOINT
if ($running -contains 'docker' -or (-not $running.Count -and (Get-Command docker -ErrorAction SilentlyContinue))) {
    # Distinct in one pass (Select-Object -Unique compares each ID with all kept so far).
    $seen = New-Object 'System.Collections.Generic.HashSet[string]'
    $ids = @(docker images -q --no-trunc | Where-Object { $seen.Add($_) })
    if ($LASTEXITCODE) { throw "docker images exited $LASTEXITCODE" }
    if ($ids.Count) { docker image inspect $ids } else { '[]' }
} elseif (Get-Command crictl -ErrorAction SilentlyContinue) {
    $seen = New-Object 'System.Collections.Generic.HashSet[string]'
    $ids = @(crictl images -q | Where-Object { $seen.Add($_) })
    if ($LASTEXITCODE) { throw "crictl images exited $LASTEXITCODE" }
    if ($ids.Count) { crictl inspecti -o json $ids } else { '[]' }
} else {
    throw 'neither docker nor crictl is on the PATH'
}
