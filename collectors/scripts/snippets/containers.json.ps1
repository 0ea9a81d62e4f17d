# wts:may-hang: docker and crictl block when the runtime's named pipe does not answer.
# The runtime is the one whose service runs, not whichever exe is on the PATH (a node moved
# from docker to containerd keeps docker.exe). crictl gets the endpoint explicitly: with
# none configured it warns on stderr (kubernetes-sigs/cri-tools#703).
$running = @(Get-Service -Name 'docker', 'containerd' -ErrorAction SilentlyContinue | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name })
$cri = 'npipe:////./pipe/containerd-containerd'
if ($running -contains 'docker' -or (-not $running.Count -and (Get-Command docker -ErrorAction SilentlyContinue))) {
    docker ps -a --no-trunc --format '{{json .}}'
} elseif (Get-Command crictl -ErrorAction SilentlyContinue) {
    crictl --runtime-endpoint $cri pods -o json
} else {
    throw 'neither docker nor crictl is on the PATH'
}
