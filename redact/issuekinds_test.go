package redact

import (
	"strings"
	"testing"
)

// TestIssueKinds: the Windows and Kubernetes kinds of issue 24 the redactor knows, each
// gone from a line that holds it. Before, all of the command-line, header, presigned-URL,
// base64-PEM and environment (PASS, AUTH, KEY) rows leaked.
func TestIssueKinds(t *testing.T) {
	cases := []struct{ name, file, in, secret string }{
		{"-p", "a.log", "mysql -u root -pSeedP01x -h db", "SeedP01x"},
		{"-p space", "a.log", "sshpass -p SeedP02x ssh root@h", "SeedP02x"},
		{"--password=", "a.log", "tool --password=SeedP03x", "SeedP03x"},
		{"/pass:", "a.log", "cmdkey /add:srv /user:u /pass:SeedP04x", "SeedP04x"},
		{"/rp", "a.log", "schtasks /create /tn x /ru admin /rp SeedP05x", "SeedP05x"},
		{"net use", "a.log", `net use \\srv\share SeedP06x /user:dom\u`, "SeedP06x"},
		{"securestring", "a.log", `ConvertTo-SecureString "SeedP07x" -AsPlainText -Force`, "SeedP07x"},
		{"nssm", "a.log", `nssm set kubelet AppParameters --token=SeedP08x --v=2`, "SeedP08x"},
		{"env PASS", "a.log", "DB_PASS=SeedP09x", "SeedP09x"},
		{"env AUTH", "a.log", "BASIC_AUTH=SeedP10x", "SeedP10x"},
		{"env KEY", "a.log", "STORAGE_KEY=SeedP11x", "SeedP11x"},
		{"secret data yaml", "s.yaml", "apiVersion: v1\nkind: Secret\ndata:\n  tls.key: U2VlZFAxMnhTZWVkUDEyeA==\n", "U2VlZFAxMnhTZWVkUDEyeA=="},
		{"client-key-data", "kubeconfig", "users:\n- user:\n    client-key-data: U2VlZFAxNHg=\n", "U2VlZFAxNHg="},
		{"kubeconfig token", "kubeconfig", "users:\n- user:\n    token: SeedP15x\n", "SeedP15x"},
		{"pem base64", "a.log", "key LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpTZWVkUDE3eApTZWVkUDE3eA== end", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpTZWVkUDE3eApTZWVkUDE3eA=="},
		{"jwt", "a.log", "t eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTZWVkUDE4In0.c2lnU2VlZFAxOHh4eA x", "eyJzdWIiOiJTZWVkUDE4In0"},
		{"bootstrap", "a.log", "kubeadm join --token abcdef.0123456789abcdef", "0123456789abcdef"},
		{"sas", "a.log", "https://a.blob.core.windows.net/c?sv=2021&sig=SeedP20x%3D&se=1", "SeedP20x"},
		{"connstr", "a.log", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=SeedP21x==;", "SeedP21x"},
		{"s3 presigned", "a.log", "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524&X-Amz-Signature=SeedP22xaabbccdd", "SeedP22xaabbccdd"},
		{"cookie", "a.log", "Cookie: session=SeedP23x; other=1", "SeedP23x"},
		{"x-auth-token", "a.log", "X-Auth-Token: SeedP24x", "SeedP24x"},
		{"url userinfo", "a.log", "https://u:SeedP25x@h/x", "SeedP25x"},
	}
	for _, c := range cases {
		out := Default().String(c.file, c.in)
		if strings.Contains(out, c.secret) {
			t.Errorf("%s: %q", c.name, out)
		}
	}
}
