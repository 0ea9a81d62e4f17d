package evidence

import "github.com/wintroubleshoot/wintroubleshoot/evidence/decode"

// FileProxy is the node's proxy settings (FM-31). Evidence collected before this version
// lacks it and HOST-PROXY skips.
const FileProxy = "proxy.json"

// proxyKeys are this file's keys, in table order (appended to nodeKeys).
func proxyKeys() []Ref { return []Ref{Proxy} }

// Proxy is nodes/<node>/proxy.json.
var Proxy Key[decode.Proxy] = NodeKey(FileProxy, decode.DecodeProxy, Meta{
	Command: "`[Environment]::GetEnvironmentVariable(<HTTP_PROXY|HTTPS_PROXY|NO_PROXY>, 'Machine')` and `'User'`; the `*_PROXY=` entries of `(Get-ItemProperty HKLM:\\SYSTEM\\CurrentControlSet\\Services\\<containerd|docker|kubelet>).Environment`; WinHTTP's proxy and bypass list decoded from `HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Internet Settings\\Connections` `WinHttpSettings` (what `netsh winhttp show proxy` prints); the `server:` of the kubelet's `--kubeconfig`. Userinfo in URLs is replaced by `***REDACTED***@` on the node",
	Format:  "one object: `Machine`, `User` (name -> value, only the set ones), `Services[]` (`Name`, `Environment[]` of `NAME=value`), `WinHTTPProxy`, `WinHTTPBypass`, `APIServer` (\"\" when unknown)",
})
