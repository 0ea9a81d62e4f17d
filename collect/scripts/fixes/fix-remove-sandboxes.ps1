param([string[]]$Id)
# Stops and removes exactly the pod sandboxes the preview listed (RUNTIME-LEFTOVERS on
# containerd): restarting containerd keeps them, because their shims outlive it. stopp
# tears the pod's network down (its HNS endpoint goes), rmp deletes the sandbox
# (cri-tools docs/crictl.md). The endpoint is passed explicitly, as the snippets do, so
# crictl neither guesses nor warns. An ID that is no longer there is reported and skipped.
$ep = 'npipe:////./pipe/containerd-containerd'
if (-not (Get-Command crictl -ErrorAction SilentlyContinue)) { throw 'crictl is not on the PATH' }
$listed = crictl --runtime-endpoint $ep pods -q 2>&1
if ($LASTEXITCODE -ne 0) { throw "crictl pods failed (exit $LASTEXITCODE): $listed" }
$present = @($listed | ForEach-Object { "$_".Trim() })
foreach ($i in @($Id)) {
    if ($present -notcontains $i) { "skipped ${i}: no longer exists"; continue }
    foreach ($verb in 'stopp', 'rmp') {
        $out = crictl --runtime-endpoint $ep $verb $i 2>&1
        if ($LASTEXITCODE -ne 0) { throw "crictl $verb $i failed (exit $LASTEXITCODE): $out" }
    }
    "removed $i"
}
