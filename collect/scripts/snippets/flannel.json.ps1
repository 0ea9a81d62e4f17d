# flanneld's subnet.env and the overlay source VIP files, each with its text as written.
# flanneld writes --subnet-file (default /run/flannel/subnet.env, so C:\run\flannel\subnet.env
# on the system drive: flannel main.go, pkg/subnet/subnet.go WriteSubnetFile), also from a
# HostProcess pod (sig-windows-tools hostprocess/flannel/flanneld/start.ps1 passes no
# --subnet-file); the flannel CNI plugin reads the same path. The source VIP: microsoft/SDN
# Kubernetes/windows helper.psm1 and helper.v2.psm1 GetSourceVip write C:\k\sourceVipRequest.json
# and host-local's answer C:\k\sourceVip.json (Out-File: UTF-16LE with a BOM, which Read-WtsText reads);
# sig-windows-tools' HostProcess kube-proxy start.ps1 keeps them in C:\sourcevip. A node
# without flannel prints an empty Files list.
$paths = 'C:\run\flannel\subnet.env', 'C:\k\sourceVip.json', 'C:\k\sourceVipRequest.json',
    'C:\sourcevip\sourceVip.json', 'C:\sourcevip\sourceVipRequest.json'
$files = @(foreach ($p in $paths) {
    $item = Get-Item -LiteralPath $p -ErrorAction SilentlyContinue
    if ($item) {
        [pscustomobject]@{
            Path          = $p
            LastWriteTime = $item.LastWriteTimeUtc.ToString('o')
            Content       = [string](Read-WtsText $p)
        }
    }
})
[pscustomobject]@{ Files = $files } | ConvertTo-Json -Depth 3
