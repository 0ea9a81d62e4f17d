package redact

import (
	"bytes"
	"encoding/json"
	"golang.org/x/text/encoding/unicode"
	"strings"
	"sync"
	"testing"
)

// secretKind is one kind of secret as it turns up in real evidence: the file it is in,
// the text holding it, and the value that must go.
type secretKind struct {
	kind, file, text, secret string
}

// Kinds lists every kind of secret the redactor is held to, one example each. The
// bundle-level seeded test plants the same values into scenarios.
func kinds() []secretKind {
	return []secretKind{
		{"pod env with a secret-like name", "cluster/pods.json",
			`{"items":[{"kind":"Pod","spec":{"containers":[{"env":[{"name":"DB_PASSWORD","value":"EnvPw-7731"},{"name":"LOG_LEVEL","value":"debug"}]}]}}]}`, "EnvPw-7731"},
		{"env entry with value before name", "cluster/daemonsets.json",
			`{"items":[{"spec":{"template":{"spec":{"containers":[{"env":[{"value":"EnvTok-5521","name":"GITHUB_TOKEN"}]}]}}}}]}`, "EnvTok-5521"},
		{"args with the value after --password", "cluster/pods.json",
			`{"spec":{"containers":[{"args":["--v=2","--password","ArgPw-4410"]}]}}`, "ArgPw-4410"},
		{"args with the value after -Token", "cluster/daemonsets.json",
			`{"command":["powershell","-File","join.ps1","-Token","ArgTok-9913"]}`, "ArgTok-9913"},
		{"PowerShell command line with -Password \"x\"", "nodes/w/processes.json",
			`[{"CommandLine":"x.exe -Password \"Pw1-Quoted\" -Verbose"}]`, "Pw1-Quoted"},
		{"net user NAME PASSWORD", "nodes/w/log-startup.log",
			"running net user kadmin NetUs3r-Pw /add\n", "NetUs3r-Pw"},
		{"a Secret's data inside a log", "nodes/w/log-kubelet.log",
			`I0101 reflector.go] object {"apiVersion":"v1","data":{"token":"TG9nU2VjcmV0"},"kind":"Secret"}` + "\n", "TG9nU2VjcmV0"},
		{"Authorization: Basic", "nodes/w/log-runtime.log",
			"GET /v2/ Authorization: Basic dXNlcjpCYXNpY1B3\n", "dXNlcjpCYXNpY1B3"},
		{"Authorization: Bearer", "nodes/w/kubelet.log",
			`-H "Authorization: Bearer BearerTok.abc-123"` + "\n", "BearerTok.abc-123"},
		{"containerd registry auth", "nodes/w/containerd-config.toml",
			"[plugins.\"io.containerd.grpc.v1.cri\".registry.configs.\"reg.local\".auth]\n  auth = \"cmVnOlJlZ0F1dGg=\"\n", "cmVnOlJlZ0F1dGg="},
		{"containerd registry identitytoken", "nodes/w/containerd-config.toml",
			"  identitytoken = \"IdTok-8870\"\n", "IdTok-8870"},
		{"connection string Pwd=", "nodes/w/log-runtime.log",
			"Server=db;Uid=sa;Pwd=ConnPwd-11;Database=x\n", "ConnPwd-11"},
		{"connection string Password=", "nodes/w/log-runtime.log",
			"Data Source=db;User ID=sa;Password=ConnPw-22;\n", "ConnPw-22"},
		{"api_key=", "nodes/w/log-flanneld.log", "calling api_key=ApiKey-3344&x=1\n", "ApiKey-3344"},
		{"x-api-key: header", "nodes/w/log-flanneld.log", "x-api-key: XApiKey-5566\n", "XApiKey-5566"},
		{"SECRET_KEY=", "nodes/w/log-startup.log", "export SECRET_KEY=SecKey-7788\n", "SecKey-7788"},
		{"bare JWT", "nodes/w/log-kubelet.log",
			"token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJKd3RTZWNyZXQifQ.Snd0U2lnbmF0dXJl rejected\n", "eyJzdWIiOiJKd3RTZWNyZXQifQ"},
		{"credentials in a URL", "nodes/w/kube-proxy.log", "dial https://admin:UrlPw-9900@10.0.0.1:6443/api\n", "UrlPw-9900"},
		{"credentials in a URL in JSON", "cluster/cluster-config.json", `{"server":"https://admin:UrlPwJ-1212@10.0.0.1:6443"}`, "UrlPwJ-1212"},
		{"kubeconfig client-key-data", "nodes/w/kubeconfig", "    client-key-data: S3ViZUtleURhdGE=\n", "S3ViZUtleURhdGE="},
		{"kubeconfig token", "nodes/w/kubeconfig", "    token: KubeTok-3434\n", "KubeTok-3434"},
		{"bootstrap token", "nodes/w/log-startup.log", "kubeadm join --discovery-token-unsafe-skip-ca-verification x 123abc.0123456789abcdef\n", "123abc.0123456789abcdef"},
		{"AWS access key id", "nodes/w/log-startup.log", "key AKIAZZZZZZZZZZZZZZZZ\n", "AKIAZZZZZZZZZZZZZZZZ"},
		{"AWS secret access key", "nodes/w/log-startup.log", "aws_secret_access_key=AwsSecret/Key+1\n", "AwsSecret/Key+1"},
		{"PEM private key", "nodes/w/log-startup.log", "-----BEGIN PRIVATE KEY-----\nUEVNUHJpdktleUJvZHk=\n-----END PRIVATE KEY-----\n", "UEVNUHJpdktleUJvZHk="},
		{"PEM private key in a JSON string", "cluster/cluster-config.json", `{"key":"-----BEGIN EC PRIVATE KEY-----\nUEVNSnNvbktleQ==\n-----END EC PRIVATE KEY-----\n"}`, "UEVNSnNvbktleQ=="},
		{"a Secret's data in JSON", "cluster/secrets.json", `{"items":[{"data":{"x":"U2VjRGF0YQ=="},"kind":"Secret"}]}`, "U2VjRGF0YQ=="},
		{"secret-like JSON key", "nodes/w/cni-config.json", `{"etcd_password":"CniPw-5656","apiKey":"CniKey-7878"}`, "CniPw-5656"},
		{"net user in an argument list", "cluster/pods.json", `{"command":["net","user","kadmin","NetArgPw-3131"]}`, "NetArgPw-3131"},
		{"Authorization header in JSON", "nodes/w/config.json", `{"headers":{"Authorization":"Negotiate TlRMTVNTUAAB"}}`, "TlRMTVNTUAAB"},
		{"docker config auth in JSON", "nodes/w/config.json", `{"auths":{"reg":{"auth":"RG9ja2VyQXV0aA=="}}}`, "RG9ja2VyQXV0aA=="},
		{"--password=x on a command line", "report.md", "kubelet.exe --password=FlagEq-4545 --v=2\n", "FlagEq-4545"},
		{"ConvertTo-SecureString plain text", "nodes/w/log-startup.log", `$p = ConvertTo-SecureString "SecStr-6767" -AsPlainText -Force` + "\n", "SecStr-6767"},
		{"Azure AccountKey", "nodes/w/log-runtime.log", "AccountName=a;AccountKey=QXp1cmVLZXk=;\n", "QXp1cmVLZXk="},
		{"client_secret=", "nodes/w/log-runtime.log", "client_secret=ClientSec-8989\n", "ClientSec-8989"},
	}
}

func TestEverySecretKind(t *testing.T) {
	for _, k := range kinds() {
		r := Default()
		out := r.Bytes(k.file, []byte(k.text))
		if bytes.Contains(out, []byte(k.secret)) {
			t.Errorf("%s: %q survived in %s:\n%s", k.kind, k.secret, k.file, out)
		}
		if IsJSON(k.file) && !json.Valid(out) {
			t.Errorf("%s: the redacted JSON is not valid:\n%s", k.kind, out)
		}
		if r.Total() == 0 {
			t.Errorf("%s: nothing counted", k.kind)
		}
		for _, c := range r.Counts() {
			if strings.Contains(c.Rule+c.File, k.secret) {
				t.Errorf("%s: the summary shows the value: %+v", k.kind, c)
			}
		}
	}
	t.Logf("%d kinds of secret covered", len(kinds()))
}

// Defect 2 of issue 11: a quoted PowerShell password inside a JSON string was redacted
// by regex over the raw text, leaving invalid JSON with the password in it.
func TestQuotedPasswordInJSONStaysValid(t *testing.T) {
	in := `{"CommandLine": "x.exe -Password \"Pw1\""}`
	out := Default().Bytes("processes.json", []byte(in))
	var v struct{ CommandLine string }
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("redacted JSON does not decode: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "Pw1") || v.CommandLine != "x.exe -Password "+Replacement {
		t.Errorf("got %q", v.CommandLine)
	}
}

func TestLayoutIsKeptAroundARedaction(t *testing.T) {
	// PowerShell 5.1's ConvertTo-Json: four-space indent, two spaces after the colon.
	in := "\xef\xbb\xbf[\r\n    {\r\n        \"Name\":  \"kubelet\",\r\n        \"Password\":  \"Ps51Pw\",\r\n        \"Id\":  4\r\n    }\r\n]\r\n"
	want := strings.Replace(in, "Ps51Pw", Replacement, 1)
	if got := string(Default().Bytes("x.json", []byte(in))); got != want {
		t.Errorf("layout changed:\n%q\nwant\n%q", got, want)
	}
}

func TestUTF16JSON(t *testing.T) {
	in := toUTF16([]byte(`{"token": "U16Secret", "n": "keep"}`), utf16Form{unicode.LittleEndian, true})
	out := Default().Bytes("x.json", in)
	u, _, ok := fromUTF16(out)
	if !ok || strings.Contains(string(u), "U16Secret") || !strings.Contains(string(u), "keep") {
		t.Errorf("UTF-16 JSON: %q", u)
	}
}

func TestUTF16Text(t *testing.T) {
	for _, form := range []utf16Form{{unicode.LittleEndian, true}, {unicode.BigEndian, true}, {unicode.LittleEndian, false}, {unicode.BigEndian, false}} {
		clean := toUTF16([]byte("Starting node setup\r\nSetup done\r\n"), form)
		if out := Default().Bytes("startup.log", clean); !bytes.Equal(out, clean) {
			t.Errorf("%v: clean UTF-16 text changed", form)
		}
		in := toUTF16([]byte("net user kadmin U16NetPw /add\r\npassword=U16Pw\r\n"), form)
		out := Default().Bytes("startup.log", in)
		u, got, ok := fromUTF16(out)
		if !ok || got != form || strings.Contains(string(u), "U16NetPw") || strings.Contains(string(u), "U16Pw") || !strings.Contains(string(u), "kadmin") {
			t.Errorf("%v: UTF-16 text: %q (read back as %v)", form, u, got)
		}
	}
}

func TestLiteralEverywhere(t *testing.T) {
	r := Default()
	if err := r.AddLiteral("N0de'Pw&1"); err != nil {
		t.Fatal(err)
	}
	if err := r.AddLiteral("ab"); err == nil {
		t.Error("a two-byte literal was accepted")
	}
	for name, in := range map[string]string{
		"a.log":      "winrm user admin with N0de'Pw&1 in a message",
		"b.log":      "ps: -p 'N0de''Pw&1' and TjBkZSdQdyYx (base64)",
		"c.json":     `{"msg": "N0de\u0027Pw\u00261", "N0de'Pw&1": 1}`,
		"d.md":       "soap <Password>N0de&#39;Pw&amp;1</Password> url N0de%27Pw%261",
		"e.log":      "encoded " + "TgAwAGQAZQAnAFAAdwAmADEA",
		"report.txt": "plain N0de'Pw&1",
	} {
		out := string(r.Bytes(name, []byte(in)))
		for _, form := range []string{"N0de", "TjBkZSdQdyYx", "TgAwAGQAZQAnAFAAdwAmADEA"} {
			if strings.Contains(out, form) {
				t.Errorf("%s: the literal survived as %q: %s", name, form, out)
			}
		}
		if IsJSON(name) && !json.Valid([]byte(out)) {
			t.Errorf("%s: invalid JSON: %s", name, out)
		}
	}
}

func TestWriterStreamsAndCounts(t *testing.T) {
	r := Default()
	var out bytes.Buffer
	w := r.Writer(&out, "report.md")
	for _, part := range []string{"line one password=Wr1", "te-Secret\nserver https://u:UrlWr@h/\n", "tail token: TailTok"} {
		w.Write([]byte(part))
	}
	if strings.Contains(out.String(), "TailTok") {
		t.Error("the last line went out before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Wr1te-Secret", "UrlWr", "TailTok"} {
		if strings.Contains(out.String(), s) {
			t.Errorf("%q survived the writer: %s", s, out.String())
		}
	}
	if r.Total() != 3 {
		t.Errorf("counted %d, want 3: %+v", r.Total(), r.Counts())
	}
	var js bytes.Buffer
	jw := r.Writer(&js, "findings.json")
	jw.Write([]byte(`{"detail": "x.exe -Password \"P`))
	jw.Write([]byte(`w2\""}`))
	jw.Close()
	if !json.Valid(js.Bytes()) || strings.Contains(js.String(), "Pw2") {
		t.Errorf("JSON writer: %s", js.String())
	}
}

// One redactor serves every exit at once: the TUI's pager, a report, a bundle.
func TestConcurrentUse(t *testing.T) {
	r := Default()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for _, k := range kinds() {
				if out := r.Bytes(k.file, []byte(k.text)); bytes.Contains(out, []byte(k.secret)) {
					t.Errorf("%s survived under concurrency", k.kind)
				}
				if i == 0 {
					r.AddLiteral("Concurrent-Literal-" + k.kind)
				}
				r.Counts()
			}
		})
	}
	wg.Wait()
	if r.Total() < 8*len(kinds()) {
		t.Errorf("counted %d values, want at least %d", r.Total(), 8*len(kinds()))
	}
}
