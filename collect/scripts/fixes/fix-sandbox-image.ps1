param([string]$Image)
$f = Join-Path $env:ProgramFiles 'containerd\config.toml'
# Read as UTF-8 and written back as UTF-8, with a BOM only where the file had one: read in
# the ANSI code page (Get-Content's default in Windows PowerShell 5.1) and written as
# UTF-8, every non-ASCII character of the file would come back double-encoded.
$raw = [IO.File]::ReadAllBytes($f)
$bom = $raw.Length -ge 3 -and $raw[0] -eq 0xEF -and $raw[1] -eq 0xBB -and $raw[2] -eq 0xBF
$text = Read-WtsText $f
$new = [regex]::Replace($text, '(?m)^(\s*sandbox(_image)?\s*=\s*)".*"', { param($m) $m.Groups[1].Value + '"' + $Image + '"' })
if ($new -eq $text) { throw "no sandbox_image line in $f" }
Copy-Item -LiteralPath $f -Destination "$f.bak" -Force
[IO.File]::WriteAllText($f, $new, (New-Object System.Text.UTF8Encoding $bom))
# crictl gets containerd's endpoints explicitly (the environment variables of its
# --runtime-endpoint and --image-endpoint flags): with none configured it warns on stderr,
# which a sweep keeps as a note only (kubernetes-sigs/cri-tools#703).
$env:CONTAINER_RUNTIME_ENDPOINT = 'npipe:////./pipe/containerd-containerd'
$env:IMAGE_SERVICE_ENDPOINT = $env:CONTAINER_RUNTIME_ENDPOINT
& crictl pull $Image
if ($LASTEXITCODE) { throw "crictl pull $Image exited $LASTEXITCODE" }
if (Test-WtsRestartCutsExec 'containerd') { Restart-WtsServiceDetached -Name containerd } else { Start-WtsService -Name containerd -Restart }
