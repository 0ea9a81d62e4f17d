param([string]$Image)
$f = Join-Path $env:ProgramFiles 'containerd\config.toml'
$text = Get-Content -Raw -LiteralPath $f
$new = [regex]::Replace($text, '(?m)^(\s*sandbox(_image)?\s*=\s*)".*"', { param($m) $m.Groups[1].Value + '"' + $Image + '"' })
if ($new -eq $text) { throw "no sandbox_image line in $f" }
Copy-Item -LiteralPath $f -Destination "$f.bak" -Force
[IO.File]::WriteAllText($f, $new)
# crictl gets containerd's endpoints explicitly (the environment variables of its
# --runtime-endpoint and --image-endpoint flags): with none configured it warns on stderr,
# which a sweep keeps as a note only (kubernetes-sigs/cri-tools#703).
$env:CONTAINER_RUNTIME_ENDPOINT = 'npipe:////./pipe/containerd-containerd'
$env:IMAGE_SERVICE_ENDPOINT = $env:CONTAINER_RUNTIME_ENDPOINT
& crictl pull $Image
if ($LASTEXITCODE) { throw "crictl pull $Image exited $LASTEXITCODE" }
Start-WtsService -Name containerd -Restart
