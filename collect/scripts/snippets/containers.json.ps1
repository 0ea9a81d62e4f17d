# wts:may-hang: docker and crictl block when the runtime's named pipe does not answer.
# The runtime is the one whose service runs, not whichever exe is on the PATH (a node moved
# from docker to containerd keeps docker.exe). crictl gets containerd's endpoint explicitly,
# through the environment variables of its --runtime-endpoint and --image-endpoint flags:
# with none configured it warns on stderr (kubernetes-sigs/cri-tools#703).
$running = @(Get-Service -Name 'docker', 'containerd' -ErrorAction SilentlyContinue | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name })
$env:CONTAINER_RUNTIME_ENDPOINT = 'npipe:////./pipe/containerd-containerd'
$env:IMAGE_SERVICE_ENDPOINT = $env:CONTAINER_RUNTIME_ENDPOINT
if ($running -contains 'docker' -or (-not $running.Count -and (Get-Command docker -ErrorAction SilentlyContinue))) {
    docker ps -a --no-trunc --format '{{json .}}'
} elseif (Get-Command crictl -ErrorAction SilentlyContinue) {
    crictl pods -o json
} else {
    throw 'neither docker nor crictl is on the PATH'
}
