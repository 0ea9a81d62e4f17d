if (Get-Command docker -ErrorAction SilentlyContinue) {
    docker ps -a --no-trunc --format '{{json .}}'
} elseif (Get-Command crictl -ErrorAction SilentlyContinue) {
    crictl pods -o json
} else {
    throw 'neither docker nor crictl is on the PATH'
}
