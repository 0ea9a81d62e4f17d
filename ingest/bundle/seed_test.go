package bundle

import (
	"bytes"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/secrets"
)

func TestSecretsNeverReachTheBundle(t *testing.T) {
	dst, m := writeTree(t, secrets.Files(), Options{Tool: "wintroubleshoot", Version: "test"})
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
