param([string]$Source, [string]$Target, [string]$Dir = 'C:\k')
# The SDN InstallImages.ps1 step: its Dockerfile builds FROM nanoserver with no tag, so the
# local nanoserver must answer to :latest before the pause image can be built.
& docker tag $Source 'mcr.microsoft.com/windows/nanoserver:latest'
if ($LASTEXITCODE) { throw "docker tag $Source exited $LASTEXITCODE" }
if (-not (Test-Path (Join-Path $Dir 'Dockerfile'))) { throw "no Dockerfile in $Dir to build $Target from" }
Push-Location $Dir
try {
    & docker build -t $Target .
    if ($LASTEXITCODE) { throw "docker build -t $Target exited $LASTEXITCODE" }
} finally {
    Pop-Location
}
