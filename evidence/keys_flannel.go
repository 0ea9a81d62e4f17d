package evidence

import "github.com/wintroubleshoot/wintroubleshoot/evidence/decode"

// FileFlannel is flanneld's subnet.env and the overlay source VIP files (failure mode
// FM-13). Evidence collected before this version lacks it and FLANNEL-STATE skips.
const FileFlannel = "flannel.json"

// flannelKeys are this file's keys, in table order (appended to nodeKeys).
func flannelKeys() []Ref { return []Ref{Flannel} }

// Flannel is nodes/<node>/flannel.json.
var Flannel Key[decode.FlannelFiles] = NodeKey(FileFlannel, decode.DecodeFlannelFiles, Meta{
	Command: "for each of `C:\\run\\flannel\\subnet.env` (flanneld's default --subnet-file), `C:\\k\\sourceVip.json`, `C:\\k\\sourceVipRequest.json` (microsoft/SDN helper.psm1 GetSourceVip), `C:\\sourcevip\\sourceVip.json`, `C:\\sourcevip\\sourceVipRequest.json` (sig-windows-tools HostProcess kube-proxy start.ps1) that exists: `[pscustomobject]@{Path=$p; LastWriteTime=$item.LastWriteTimeUtc.ToString('o'); Content=[string](Get-Content -Raw -LiteralPath $p)}`, all as `[pscustomobject]@{Files=@(...)} | ConvertTo-Json -Depth 3`",
	Format:  "one object: `Files[]` (`Path`, `LastWriteTime`, `Content`: subnet.env's `FLANNEL_NETWORK`/`FLANNEL_SUBNET`/`FLANNEL_MTU`/`FLANNEL_IPMASQ` lines; host-local's CNI result, `ip4.ip` (0.2.0) or `ips[].address` (0.3.0+); the IPAM request with `ipam.ranges[0][0].subnet`). An empty list on a node without flannel",
})
