param([string]$Runtime, [string]$Source, [string]$Target)
if ($Runtime -eq 'docker') {
    & docker tag $Source $Target
} else {
    & ctr -n k8s.io images tag --force $Source $Target
}
if ($LASTEXITCODE) { throw "tagging $Source as $Target exited $LASTEXITCODE" }
