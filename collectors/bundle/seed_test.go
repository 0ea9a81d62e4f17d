package bundle

import (
	"bytes"
	"testing"
)

// Secrets where they turn up in practice. Each value below must not survive anywhere
// in the bundle bytes.
const (
	kubeconfigYAML = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: Q0FQVUJMSUM=
    server: https://10.0.0.1:6443
  name: kubernetes
users:
- name: kubelet
  user:
    client-certificate-data: Q0VSVFBVQkxJQw==
    client-key-data: S0VZU0VDUkVUMQ==
- name: tls-bootstrap-token-user
  user:
    token: 07401b.f395accd246ae52d
`
	cniConfig = `{
    "cniVersion": "0.3.0",
    "name": "vxlan0",
    "type": "flannel",
    "etcd_password": "Cni-Secret-123",
    "delegate": { "type": "win-overlay", "dns": { "nameservers": ["10.96.0.10"] } }
}
`
	servicesJSON = `[
  {
    "Name": "kubelet",
    "AppParameters": "--bootstrap-kubeconfig=c:\\k\\bootstrap.conf --token=abcdef.0123456789abcdef --v=2"
  }
]
`
	processesJSON = `[
  { "Name": "powershell.exe", "CommandLine": "powershell.exe -File C:\\k\\join.ps1 -Password 'Adm1n!Secret' -Token qq9tok-Flag-Secret" }
]
`
	kubeletLog = `I0102 15:04:05.123456    4242 kubelet.go:2345] "SyncLoop ADD" source="api" pods=["kube-system/kube-proxy-x"]
I0102 15:04:06.000000    4242 round_trippers.go:466] curl -v -XGET -H "Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJub2RlIn0.c2lnbmF0dXJlU0VDUkVU" 'https://10.0.0.1:6443/api'
E0102 15:04:07.000000    4242 pull.go:12] pulling from https://puller:Url-P4ss-Secret@registry.local/v2/pause
`
	runtimeLog = `time="2025-01-02T15:04:05Z" level=info msg="conn DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=QUNDT1VOVEtFWVNFQ1JFVA==;EndpointSuffix=core.windows.net"
time="2025-01-02T15:04:06Z" level=info msg="db Server=db;User Id=sa;Password=Db-Pa55-Secret;"
time="2025-01-02T15:04:07Z" level=info msg="blob https://acct.blob.core.windows.net/c?sv=2020-08-04&ss=b&sig=SaSsIgSeCrEt%2Fabc"
time="2025-01-02T15:04:08Z" level=info msg="aws AKIAIOSFODNN7EXAMPLE aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY"
`
	startupLog = `Starting node setup
    -----BEGIN RSA PRIVATE KEY-----
    MIIEowIBAAKCAQEAPEMBODYSECRETLINE1
    PEMBODYSECRETLINE2abcdefghijklmnop==
    -----END RSA PRIVATE KEY-----
Setup done
`
	clusterConfig = `{"ca": "-----BEGIN EC PRIVATE KEY-----\nINLINEPEMSECRET\n-----END EC PRIVATE KEY-----\n", "serviceCIDR": "10.96.0.0/12"}
`
	secretsJSON = `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "data": {
                "password": "U0VDUkVURGF0YTE=",
                "username": "U0VDUkVURGF0YTI="
            },
            "kind": "Secret",
            "metadata": {
                "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"password\":\"U0VDUkVURGF0YTE=\"},\"kind\":\"Secret\"}\n"
                },
                "name": "windows-node-password"
            },
            "type": "Opaque"
        },
        {
            "apiVersion": "v1",
            "data": { "net-conf.json": "{\"Network\": \"10.244.0.0/16\"}" },
            "kind": "ConfigMap",
            "metadata": { "name": "kube-flannel-cfg" }
        },
        { "metadata": { "name": "typed" }, "stringData": { "x": "TypedListSecret" }, "type": "Opaque" }
    ],
    "kind": "List"
}
`
)

func seededFiles() map[string]string {
	return map[string]string{
		"nodes/win-1/bootstrap-kubeconfig": kubeconfigYAML,
		"nodes/win-1/cni-config.json":      cniConfig,
		"nodes/win-1/services.json":        servicesJSON,
		"nodes/win-1/processes.json":       processesJSON,
		"nodes/win-1/log-kubelet.log":      kubeletLog,
		"nodes/win-1/log-runtime.log":      runtimeLog,
		"nodes/win-1/log-startup.log":      startupLog,
		"cluster/cluster-config.json":      clusterConfig,
		"cluster/secrets.json":             secretsJSON,
		"report.md":                        "## win-1\n\n```\n" + kubeletLog + "```\n",
	}
}

func TestSecretsNeverReachTheBundle(t *testing.T) {
	dst, m := writeTree(t, seededFiles(), Options{Tool: "wintroubleshoot", Version: "test"})
	raw := gunzip(t, dst)
	secrets := []string{
		"S0VZU0VDUkVUMQ==", "07401b.f395accd246ae52d", "Cni-Secret-123", "abcdef.0123456789abcdef",
		"Adm1n!Secret", "qq9tok-Flag-Secret", "c2lnbmF0dXJlU0VDUkVU", "Url-P4ss-Secret",
		"QUNDT1VOVEtFWVNFQ1JFVA==", "Db-Pa55-Secret", "SaSsIgSeCrEt", "AKIAIOSFODNN7EXAMPLE",
		"wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY", "PEMBODYSECRETLINE1", "PEMBODYSECRETLINE2",
		"INLINEPEMSECRET", "U0VDUkVURGF0YTE=", "U0VDUkVURGF0YTI=", "TypedListSecret",
	}
	for _, s := range secrets {
		if bytes.Contains(raw, []byte(s)) {
			t.Errorf("secret %q survived redaction", s)
		}
	}
	// Public values survive: redaction must not destroy the evidence.
	for _, keep := range []string{"Q0VSVFBVQkxJQw==", "https://10.0.0.1:6443", "10.244.0.0/16", "10.96.0.10",
		"--bootstrap-kubeconfig=c:", "SyncLoop ADD", "Setup done", "-----END RSA PRIVATE KEY-----"} {
		if !bytes.Contains(raw, []byte(keep)) {
			t.Errorf("public value %q was lost", keep)
		}
	}
	want := map[[2]string]int{
		{"nodes/win-1/bootstrap-kubeconfig", "kubeconfig-client-key"}: 1,
		{"nodes/win-1/bootstrap-kubeconfig", "token"}:                 1,
		{"nodes/win-1/cni-config.json", "secret-key"}:                 1,
		{"nodes/win-1/services.json", "token-flag"}:                   1,
		{"nodes/win-1/processes.json", "password-flag"}:               1,
		{"nodes/win-1/processes.json", "token-flag"}:                  1,
		{"nodes/win-1/log-kubelet.log", "bearer-token"}:               1,
		{"nodes/win-1/log-kubelet.log", "url-credentials"}:            1,
		{"nodes/win-1/log-runtime.log", "connection-string"}:          1,
		{"nodes/win-1/log-runtime.log", "password"}:                   1,
		{"nodes/win-1/log-runtime.log", "sas-signature"}:              1,
		{"nodes/win-1/log-runtime.log", "aws-access-key-id"}:          1,
		{"nodes/win-1/log-runtime.log", "aws-secret-access-key"}:      1,
		{"nodes/win-1/log-startup.log", RulePrivateKey}:               1,
		{"cluster/cluster-config.json", RulePrivateKey}:               1,
		{"cluster/secrets.json", RuleSecretData}:                      4,
		{"report.md", "bearer-token"}:                                 1,
		{"report.md", "url-credentials"}:                              1,
	}
	got := map[[2]string]int{}
	for _, r := range m.Redactions {
		got[[2]string{r.File, r.Rule}] = r.Count
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("redactions[%s, %s] = %d, want %d", k[0], k[1], got[k], n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected redaction %s, %s: %d", k[0], k[1], n)
		}
	}
	if !m.Redacted {
		t.Error("manifest says the bundle is not redacted")
	}
	// The summary in the bundle is the one returned, and holds no secret either.
	b, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Manifest().Redactions) != len(m.Redactions) {
		t.Errorf("bundle manifest lists %d redactions, Write returned %d", len(b.Manifest().Redactions), len(m.Redactions))
	}
}
