package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"sigs.k8s.io/yaml"
)

func yamlParses(out []byte) error {
	for _, doc := range strings.Split(string(out), "\n---\n") {
		var v any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			return err
		}
	}
	return nil
}

func jsonParses(out []byte) error {
	if !json.Valid(out) {
		return fmt.Errorf("not valid JSON")
	}
	return nil
}

func tomlParses(out []byte) error {
	var v map[string]any
	_, err := toml.Decode(string(out), &v)
	return err
}

// wrappedPEM is a PEM private key base64-encoded and wrapped at 76 columns (base64 of a
// kubeconfig key, a Secret's tls.key printed by a script), each line with prefix.
func wrappedPEM(prefix string) (string, []string) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAseedQ31aaaaBBBBccccDDDDeeeeFFFFgggg\nseedQ32hhhhIIIIjjjjKKKKllllMMMMnnnnOOOOppppQQQQrrrr\n-----END RSA PRIVATE KEY-----\n"
	b := base64.StdEncoding.EncodeToString([]byte(pem))
	var lines, secrets []string
	for len(b) > 0 {
		n := min(76, len(b))
		lines = append(lines, prefix+b[:n])
		secrets = append(secrets, b[max(0, n-24):n])
		b = b[n:]
	}
	return strings.Join(lines, "\n") + "\n", secrets
}

// TestStructureKeepingKinds: secrets a line rule cannot see, because the key that makes
// them secret is on another line, or the value is no string, or a PEM block is cut into
// prefixed log lines; each must go and the file keep its structure. Before, every row
// leaked.
func TestStructureKeepingKinds(t *testing.T) {
	klogPrefix := "I0301 08:13:02.702388    2904 certs.go:92] "
	b64log, b64secrets := wrappedPEM("")
	b64klog, b64ksecrets := wrappedPEM(klogPrefix)
	b64yaml, b64ysecrets := wrappedPEM("    ")
	cases := []struct {
		name, file, in string
		secrets        []string
		check          func([]byte) error
	}{
		{"stringData", "secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  db-url: postgres-SeedQ01plain\n  quoted: \"SeedQ02quoted\"\n  config.yaml: |\n    user: admin\n    pass-phrase-SeedQ03block\n  port: 5432\ntype: Opaque\n",
			[]string{"SeedQ01plain", "SeedQ02quoted", "SeedQ03block", "5432"}, yamlParses},
		{"stringData in a paste", "pasted.txt", "PS C:\\> kubectl get secret db -o yaml\napiVersion: v1\nstringData:\n  url: SeedQ04paste\nkind: Secret\n",
			[]string{"SeedQ04paste"}, nil},
		{"data before kind (kubectl's order)", "secrets.yaml", "apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    db-url: U2VlZFEwNWRhdGFkYXRh\n    short: YQ==\n  kind: Secret\nkind: List\n",
			[]string{"U2VlZFEwNWRhdGFkYXRh", "YQ=="}, yamlParses},
		{"password block scalar", "values.yaml", "db:\n  password: |\n    SeedQ06block\n  host: db\n",
			[]string{"SeedQ06block"}, yamlParses},
		{"mapping under credentials", "values.yaml", "credentials:\n  user: bob\n  key: SeedQ07nested\n  pin: 424242\nother: 1\n",
			[]string{"SeedQ07nested", "424242"}, yamlParses},
		{"yaml number and bool", "values.yaml", "password: 98765431\ntoken: true\n",
			[]string{"98765431", "true"}, yamlParses},
		{"json number", "config.json", `{"password": 98765432, "port": 443}`, []string{"98765432"}, jsonParses},
		{"json bool", "config.json", `{"password": true, "x": 1}`, []string{"true"}, jsonParses},
		{"json object under token", "config.json", `{"token": {"value": "SeedQ08obj", "n": 42424243, "ok": false}, "port": 443}`,
			[]string{"SeedQ08obj", "42424243", "false"}, jsonParses},
		{"json array under secrets", "config.json", `{"secrets": ["SeedQ09arr", 42424244]}`, []string{"SeedQ09arr", "42424244"}, jsonParses},
		{"json number in a log line", "kubelet.log", klogPrefix + `config={"password": 98765433, "port": 443}` + "\n",
			[]string{"98765433"}, func(out []byte) error {
				s := string(out)
				return jsonParses([]byte(strings.TrimSpace(s[strings.Index(s, "config=")+7:])))
			}},
		{"toml number", "config.toml", "[db]\npassword = 98765434\n", []string{"98765434"}, tomlParses},
		{"PEM over klog lines", "kubelet.log", klogPrefix + "loaded key -----BEGIN RSA PRIVATE KEY-----\n" + klogPrefix + "MIIEowIBAAKCAQEAseedQ10aaaaBBBB\n" + klogPrefix + "seedQ11hhhhIIIIjjjj\n" + klogPrefix + "-----END RSA PRIVATE KEY-----\n" + klogPrefix + "next\n",
			[]string{"seedQ10", "seedQ11"}, nil},
		{"PEM in a CRI log", "container.log", "2026-03-01T08:13:02.70Z stdout F -----BEGIN PRIVATE KEY-----\n2026-03-01T08:13:02.70Z stdout F MIIEvQseedQ12aaaa\n2026-03-01T08:13:02.70Z stdout F -----END PRIVATE KEY-----\n",
			[]string{"seedQ12"}, nil},
		{"base64 PEM wrapped", "startup.log", "key:\n" + b64log + "done\n", b64secrets, nil},
		{"base64 PEM wrapped in klog lines", "kubelet.log", b64klog + klogPrefix + "done\n", b64ksecrets, nil},
		{"base64 PEM in a YAML block", "secret.yaml", "kind: ConfigMap\ndata:\n  key.b64: |\n" + b64yaml + "  other: x\n", b64ysecrets, yamlParses},
	}
	for _, c := range cases {
		out := Default().Bytes(c.file, []byte(c.in))
		for _, s := range c.secrets {
			if strings.Contains(string(out), s) {
				t.Errorf("%s: %q came out:\n%s", c.name, s, out)
				break
			}
		}
		if c.check != nil {
			if err := c.check(out); err != nil {
				t.Errorf("%s: structure broken: %v\n%s", c.name, err, out)
			}
		}
	}
}

// TestStructureKeepingKeeps: what looks like those kinds and is not a secret stays byte
// for byte: a pod's projected service-account token source and automount flag, a
// ConfigMap's data, a key whose value is on the next lines but is no secret.
func TestStructureKeepingKeeps(t *testing.T) {
	cases := []struct{ file, in string }{
		{"pod.yaml", "spec:\n  automountServiceAccountToken: false\n  volumes:\n  - projected:\n      sources:\n      - serviceAccountToken:\n          expirationSeconds: 3607\n          path: token\n"},
		{"cm.yaml", "apiVersion: v1\nkind: ConfigMap\ndata:\n  net-conf.json: |\n    {\"Network\": \"10.244.0.0/16\"}\n  mode: overlay\n  enabled: dHJ1ZQ==\n"},
		{"cm.yaml", "apiVersion: v1\ndata:\n  mode: overlay\n  cni-conf.json: |\n    {\"name\": \"cbr0\"}\nkind: ConfigMap\n"},
		{"pod.json", `{"spec":{"automountServiceAccountToken":false,"volumes":[{"projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}]}}]}}`},
		{"kubelet.json", `{"authentication":{"anonymous":{"enabled":false}},"authorization":{"mode":"Webhook"},"tokenTTL":3600}`},
		{"kubelet.log", "I0301 08:13:02.702388    2904 certs.go:92] -----BEGIN CERTIFICATE-----\nI0301 08:13:02.702388    2904 certs.go:92] MIIDaTCCAlGgAwIBAgIUcert\n"},
		{"notes.txt", "Steps:\n  1. restart\n  2. check\n"},
	}
	for _, c := range cases {
		if out := Default().Bytes(c.file, []byte(c.in)); string(out) != c.in {
			t.Errorf("%s changed:\n%s\nfrom:\n%s", c.file, out, c.in)
		}
	}
}

// TestPassCountsKept: "pass" names a password in configs, but a count or a verdict under
// it is a summary (our own findings.json: {"pass": 5}), kept whole in JSON and YAML, while
// a string under it is still a secret.
func TestPassCountsKept(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"findings.json": `{"summary": {"nodes": 1, "pass": 5, "fail": 0}}`,
		"results.yaml":  "summary:\n  pass: 5\n  fail: 0\n",
	} {
		if got := string(r.Bytes(name, []byte(in))); got != in {
			t.Errorf("%s: a count under pass was redacted:\n%s", name, got)
		}
	}
	if got := string(r.Bytes("c.json", []byte(`{"pass": "hunter2-S3cret"}`))); strings.Contains(got, "hunter2") {
		t.Errorf("a string under pass leaked: %s", got)
	}
}
