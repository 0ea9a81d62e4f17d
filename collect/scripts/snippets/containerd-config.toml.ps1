$f = Join-Path $env:ProgramFiles 'containerd\config.toml'
if (-not (Test-Path $f)) { throw "no containerd config at $f" }
Read-WtsText $f
