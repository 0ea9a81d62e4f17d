package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/secrets"
)

// Secrets where they turn up in practice. Each value below must not survive anywhere
// in the bundle bytes.
func TestSecretsAreRedacted(t *testing.T) {
	r := Default()
	var all []byte
	for name, in := range secrets.Files() {
		out := r.Bytes(name, []byte(in))
		if IsJSON(name) && json.Valid([]byte(in)) && !json.Valid(out) {
			t.Errorf("%s: redaction broke the JSON:\n%s", name, out)
		}
		all = append(all, out...)
	}
	secrets := []string{
		"S0VZU0VDUkVUMQ==", "07401b.f395accd246ae52d", "Cni-Secret-123", "abcdef.0123456789abcdef",
		"Adm1n!Secret", "qq9tok-Flag-Secret", "c2lnbmF0dXJlU0VDUkVU", "Url-P4ss-Secret",
		"QUNDT1VOVEtFWVNFQ1JFVA==", "Db-Pa55-Secret", "SaSsIgSeCrEt", "AKIAIOSFODNN7EXAMPLE",
		"wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY", "PEMBODYSECRETLINE1", "PEMBODYSECRETLINE2",
		"INLINEPEMSECRET", "U0VDUkVURGF0YTE=", "U0VDUkVURGF0YTI=", "TypedListSecret",
	}
	for _, s := range secrets {
		if bytes.Contains(all, []byte(s)) {
			t.Errorf("secret %q survived redaction", s)
		}
	}
	// Public values survive: redaction must not destroy the evidence.
	for _, keep := range []string{"Q0VSVFBVQkxJQw==", "https://10.0.0.1:6443", "10.244.0.0/16", "10.96.0.10",
		"--bootstrap-kubeconfig=c:", "SyncLoop ADD", "Setup done", "-----END RSA PRIVATE KEY-----"} {
		if !bytes.Contains(all, []byte(keep)) {
			t.Errorf("public value %q was lost", keep)
		}
	}
	want := map[[2]string]bool{
		{"nodes/win-1/bootstrap-kubeconfig", "kubeconfig-client-key"}: true,
		{"nodes/win-1/bootstrap-kubeconfig", "token"}:                 true,
		{"nodes/win-1/cni-config.json", RuleSecretKey}:                true,
		{"nodes/win-1/services.json", "token-flag"}:                   true,
		{"nodes/win-1/processes.json", "password-flag"}:               true,
		{"nodes/win-1/processes.json", "token-flag"}:                  true,
		{"nodes/win-1/log-kubelet.log", "bearer-token"}:               true,
		{"nodes/win-1/log-kubelet.log", "url-credentials"}:            true,
		{"nodes/win-1/log-runtime.log", "connection-string"}:          true,
		{"nodes/win-1/log-runtime.log", "password"}:                   true,
		{"nodes/win-1/log-runtime.log", "sas-signature"}:              true,
		{"nodes/win-1/log-runtime.log", "aws-access-key-id"}:          true,
		{"nodes/win-1/log-runtime.log", "aws-secret-access-key"}:      true,
		{"nodes/win-1/log-startup.log", RulePrivateKey}:               true,
		{"cluster/cluster-config.json", RulePrivateKey}:               true,
		{"cluster/secrets.json", RuleSecretData}:                      true,
		{"report.md", "bearer-token"}:                                 true,
		{"report.md", "url-credentials"}:                              true,
	}
	got := map[[2]string]int{}
	for _, c := range r.Counts() {
		got[[2]string{c.File, c.Rule}] = c.Count
	}
	for k := range want {
		if got[k] == 0 {
			t.Errorf("no redaction counted for %s, %s (got %v)", k[0], k[1], got)
		}
	}
	if got[[2]string{"cluster/secrets.json", RuleSecretData}] != 4 {
		t.Errorf("secrets.json: %d Secret values counted, want 4", got[[2]string{"cluster/secrets.json", RuleSecretData}])
	}
}

// redactString runs the default redactor over one file's text.
func redactString(t *testing.T, name, in string) (string, map[string]int) {
	t.Helper()
	var out bytes.Buffer
	_, counts, err := Default().Filter(&out, strings.NewReader(in), name)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), counts
}

func TestCleanFilesPassUnchanged(t *testing.T) {
	clean := strings.Repeat(`I0102 15:04:05.123456    4242 kubelet.go:2345] "Failed to get token for service account" err="timeout" node="win-1.corp.example.com"
W0102 15:04:05.5 9 reflector.go:1] https://10.0.0.1:6443/api/v1/secrets?limit=500 -----BEGIN CERTIFICATE-----
{"kind": "ConfigMap", "data": {"password-policy": "strict"}}`+"\r\n", 3) + "no newline at the end"
	for _, name := range []string{"x.log", "x.json"} {
		got, counts := redactString(t, name, clean)
		if got != clean || len(counts) != 0 {
			t.Errorf("%s: a file without secrets changed (%v):\n%s", name, counts, got)
		}
	}
}

func TestRedactionIsIdempotent(t *testing.T) {
	for name, in := range secrets.Files() {
		once, _ := redactString(t, name, in)
		twice, counts := redactString(t, name, once)
		if twice != once || len(counts) != 0 {
			t.Errorf("%s: redacting twice changed it again (%v)", name, counts)
		}
	}
}

func TestPEMBlockDoesNotSwallowALog(t *testing.T) {
	in := "log: -----BEGIN PRIVATE KEY-----\nthis is an ordinary log line, not base64\nnext line\n"
	got, counts := redactString(t, "x.log", in)
	if !strings.Contains(got, "ordinary log line") || !strings.Contains(got, "next line") || len(counts) != 0 {
		t.Errorf("a stray BEGIN line ate the log (%v):\n%s", counts, got)
	}
}

func TestSecretJSONCompactAndHeldPastLimit(t *testing.T) {
	in := `[{"data":{"k":"SECRETCOMPACT"},"type":"Opaque"},{"data":{"k":"KEEPME"}}]`
	got, counts := redactString(t, "x.json", in)
	if strings.Contains(got, "SECRETCOMPACT") || !strings.Contains(got, "KEEPME") || counts[RuleSecretData] != 1 {
		t.Errorf("compact list: %v\n%s", counts, got)
	}
	// JSON is judged whole: an object with neither kind nor type is no Secret.
	big := `{"data":{"k":"HELDSECRET"},"x":"` + strings.Repeat("a", 2*maxHold) + `"}`
	if got, _ = redactString(t, "y.json", big); got != big {
		t.Error("a JSON object that is no Secret was redacted")
	}
	// In text the scanner cannot wait: an object larger than the hold is redacted.
	got, _ = redactString(t, "y.log", big)
	if strings.Contains(got, "HELDSECRET") || len(got) < maxHold {
		t.Errorf("held past the limit: secret kept or output lost (%d bytes)", len(got))
	}
}

func TestCustomRules(t *testing.T) {
	dir := t.TempDir()
	yml := filepath.Join(dir, "rules.yaml")
	os.WriteFile(yml, []byte("- name: ticket-key\n  regex: 'X-Ticket-Key: (\\S+)'\n  group: 1\n  keywords: [x-ticket-key]\n"), 0o600)
	jsn := filepath.Join(dir, "rules.json")
	os.WriteFile(jsn, []byte(`[{"name": "hostname", "regex": "corp-[a-z]+-\\d+"}]`), 0o600)
	var rules []Rule
	for _, p := range []string{yml, jsn} {
		rs, err := LoadRules(p)
		if err != nil {
			t.Fatalf("LoadRules(%s): %v", p, err)
		}
		rules = append(rules, rs...)
	}
	r, err := New(append(DefaultRules(), rules...))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := r.Copy(&out, strings.NewReader("X-Ticket-Key: tk-991\nhost corp-db-12 up\npassword=x1\n"), "a.log"); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Contains(s, "tk-991") || strings.Contains(s, "corp-db-12") || strings.Contains(s, "x1") {
		t.Errorf("custom rules missed:\n%s", s)
	}
	// The custom rules count what they replaced (X-Ticket-Key is an x-...-key header
	// to the built-in rules as well).
	rulesSeen := map[string]bool{}
	for _, c := range r.Counts() {
		rulesSeen[c.Rule] = c.File == "a.log"
	}
	if !rulesSeen["ticket-key"] || !rulesSeen["hostname"] || !rulesSeen["password"] {
		t.Errorf("Counts() = %+v, want ticket-key, hostname and password in a.log", r.Counts())
	}
	for _, bad := range []string{"- name: x\n  regexp: typo\n", "- name: x\n  regex: '('\n", "- name: x\n  regex: 'a'\n  group: 2\n", "name: x\n"} {
		p := filepath.Join(dir, "bad.yaml")
		os.WriteFile(p, []byte(bad), 0o600)
		if _, err := LoadRules(p); err == nil {
			t.Errorf("LoadRules accepted %q", bad)
		}
	}
}

func TestDeepNestingIsBounded(t *testing.T) {
	deep := strings.Repeat("{\"a\":", 200_000) + `{"data":{"k":"DeepSecret"},"kind":"Secret"}` + strings.Repeat("}", 200_000)
	for _, name := range []string{"deep.json", "deep.log"} {
		got, _ := redactString(t, name, deep)
		if strings.Contains(got, "DeepSecret") {
			t.Errorf("%s: the Secret deep inside survived", name)
		}
	}
}
