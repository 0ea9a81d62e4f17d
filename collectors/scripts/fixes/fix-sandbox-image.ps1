param([string]$Image)
$f = Join-Path $env:ProgramFiles 'containerd\config.toml'
$text = Get-Content -Raw -LiteralPath $f
$new = [regex]::Replace($text, '(?m)^(\s*sandbox(_image)?\s*=\s*)".*"', { param($m) $m.Groups[1].Value + '"' + $Image + '"' })
if ($new -eq $text) { throw "no sandbox_image line in $f" }
Copy-Item -LiteralPath $f -Destination "$f.bak" -Force
[IO.File]::WriteAllText($f, $new)
& crictl pull $Image
Restart-Service containerd -Force
