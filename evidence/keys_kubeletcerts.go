package evidence

import "github.com/wintroubleshoot/wintroubleshoot/evidence/decode"

// FileKubeletCerts is the kubelet's client and serving certificates' validity and its
// rotation settings (issue 29, FM-34). Evidence collected before this version lacks it and
// KUBELET-CERTS skips.
const FileKubeletCerts = "kubelet-certs.json"

// kubeletCertKeys are this file's keys, in table order (appended to nodeKeys).
func kubeletCertKeys() []Ref { return []Ref{KubeletCerts} }

// KubeletCerts is nodes/<node>/kubelet-certs.json.
var KubeletCerts Key[decode.KubeletCerts] = NodeKey(FileKubeletCerts, decode.DecodeKubeletCerts, Meta{
	Command: "from the kubelet's command line (`Win32_Process` kubelet.exe, else the kubelet service's PathName and nssm AppParameters): `--cert-dir` (default `C:\\var\\lib\\kubelet\\pki`), `--kubeconfig`, `--tls-cert-file`, `--rotate-certificates`, `--rotate-server-certificates`, and `rotateCertificates`, `serverTLSBootstrap`, `tlsCertFile` of its `--config` file; for the kubeconfig's `client-certificate-data` or `client-certificate`, `<cert-dir>\\kubelet-client-current.pem`, and the serving certificate (the tlsCertFile, else `kubelet-server-current.pem` or `kubelet.crt`): the first PEM CERTIFICATE block as `[Security.Cryptography.X509Certificates.X509Certificate2]` Subject, Issuer, NotBefore, NotAfter (UTC, ISO 8601); private keys are never read out. `{Kubelet, CertDir, CertDirFrom, Kubeconfig, RotateCertificates, RotateFrom, ServerTLSBootstrap, ServerTLSBootstrapFrom, Certs=@({Role, From, Path, Subject, Issuer, NotBefore, NotAfter, Error}), CollectedAt} | ConvertTo-Json -Depth 3`",
	Format:  "one object; `Role` client or serving; `From` cert-dir, kubeconfig, kubeconfig-data or tls-cert-file; `RotateCertificates`/`ServerTLSBootstrap` \"true\", \"false\" or \"\" (set nowhere: the default, false); `Error` with empty dates for a file that could not be read; `Certs` a list (one object alone is read too)",
})
