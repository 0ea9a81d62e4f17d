package decode

import (
	"strings"
	"testing"
	"time"
)

// TestDecodeKubeletCerts: the snippet's output as PS 5.1 prints it (CRLF, two spaces after
// the colon, a lone certificate unwrapped from its list, dates as ISO 8601 or /Date(ms)/),
// and the files it refuses: no CertDir, a role or rotation setting it never prints, dates
// that cannot be read or end before they begin. A file's Error keeps its row without dates.
func TestDecodeKubeletCerts(t *testing.T) {
	one := "{\r\n    \"Kubelet\":  true,\r\n    \"CertDir\":  \"C:\\\\var\\\\lib\\\\kubelet\\\\pki\",\r\n    \"CertDirFrom\":  \"kubelet-flag\",\r\n" +
		"    \"RotateCertificates\":  \"true\",\r\n    \"ServerTLSBootstrap\":  \"\",\r\n" +
		"    \"Certs\":  {\r\n        \"Role\":  \"client\",\r\n        \"From\":  \"kubeconfig\",\r\n        \"Path\":  \"C:\\\\var\\\\lib\\\\kubelet\\\\pki\\\\kubelet-client-current.pem\",\r\n" +
		"        \"Subject\":  \"CN=system:node:win-1, O=system:nodes\",\r\n        \"Issuer\":  \"CN=kubernetes\",\r\n" +
		"        \"NotBefore\":  \"/Date(1704067200000)/\",\r\n        \"NotAfter\":  \"2025-01-01T00:00:00.0000000Z\",\r\n        \"Error\":  \"\"\r\n    },\r\n" +
		"    \"CollectedAt\":  \"2024-06-01T00:00:00.0000000Z\"\r\n}\r\n"
	k, err := DecodeKubeletCerts("nodes/win-1/kubelet-certs.json", []byte(one))
	if err != nil {
		t.Fatal(err)
	}
	nb, na, ok := k.Certs[0].Validity()
	now, okNow := k.Now()
	if len(k.Certs) != 1 || !ok || !nb.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) || na.Year() != 2025 || !okNow || now.Month() != 6 ||
		!k.Rotates() || k.BootstrapsServing() || len(k.Of("client")) != 1 || len(k.Of("serving")) != 0 || k.Certs[0].SelfSigned() {
		t.Fatalf("got %+v", k)
	}
	unreadable := `{"CertDir":"C:\\k","Certs":[{"Role":"serving","Path":"C:\\k\\kubelet.crt","Error":"Access is denied"}]}`
	if k, err := DecodeKubeletCerts("f", []byte(unreadable)); err != nil || len(k.Certs) != 1 {
		t.Fatalf("a row with Error: %v %+v", err, k)
	} else if _, _, ok := k.Certs[0].Validity(); ok {
		t.Fatal("a row with Error has no validity")
	}
	for name, bad := range map[string]string{
		"no CertDir":    `{"Certs":[]}`,
		"role":          `{"CertDir":"C:\\k","Certs":[{"Role":"ca","NotBefore":"2024-01-01T00:00:00Z","NotAfter":"2025-01-01T00:00:00Z"}]}`,
		"rotation":      `{"CertDir":"C:\\k","RotateCertificates":"yes"}`,
		"no dates":      `{"CertDir":"C:\\k","Certs":[{"Role":"client","NotBefore":"","NotAfter":""}]}`,
		"ends first":    `{"CertDir":"C:\\k","Certs":[{"Role":"client","NotBefore":"2025-01-01T00:00:00Z","NotAfter":"2024-01-01T00:00:00Z"}]}`,
		"two objects":   `[{"CertDir":"a"},{"CertDir":"b"}]`,
		"not an object": `"C:\\k"`,
	} {
		if _, err := DecodeKubeletCerts("f", []byte(bad)); err == nil {
			t.Errorf("%s: accepted %s", name, bad)
		}
	}
}

// TestKubeletCertSelfSigned: client-go's throwaway CA "<host>-ca@<t>" over "<host>@<t>" is
// the kubelet's own; RKE2's "rke2-server-ca@<t>" over a node certificate is a real CA.
func TestKubeletCertSelfSigned(t *testing.T) {
	for _, c := range []struct {
		subject, issuer string
		want            bool
	}{
		{"CN=win-1@1638098100", "CN=win-1-ca@1638098100", true},
		{"CN=win-1", "CN=win-1", true},
		{"CN=win-rke2-01", "CN=rke2-server-ca@1698060005", false},
		{"CN=win-1@1638098100", "CN=win-1-ca@1638098101", false},
		{"CN=system:node:win-1, O=system:nodes", "CN=kubernetes", false},
		{"", "", false},
	} {
		if got := (KubeletCert{Subject: Str(c.subject), Issuer: Str(c.issuer)}).SelfSigned(); got != c.want {
			t.Errorf("%s under %s: self-signed %v", c.subject, c.issuer, got)
		}
	}
	if !strings.Contains(commonName("O=system:nodes, CN=system:node:x"), "system:node:x") {
		t.Error("commonName takes the CN wherever it is")
	}
}
