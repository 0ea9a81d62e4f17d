package decode

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// ps51 is how Windows PowerShell 5.1 ConvertTo-Json lays out one network: two spaces after
// the colon, hanging indentation, CRLF.
const ps51Network = "{\r\n" +
	"    \"ActivityId\":  \"5C0A6C3C-1F56-4B5D-9C6B-0E2C1A2B3C4D\",\r\n" +
	"    \"ID\":  \"B2A5E5B6-7E1F-4E0B-8C1B-3C3A0F5E2D11\",\r\n" +
	"    \"Name\":  \"l2bridge\",\r\n" +
	"    \"Type\":  \"L2Bridge\",\r\n" +
	"    \"Subnets\":  [\r\n" +
	"                    {\r\n" +
	"                        \"AddressPrefix\":  \"10.200.2.0/24\",\r\n" +
	"                        \"GatewayAddress\":  \"10.200.2.1\"\r\n" +
	"                    }\r\n" +
	"                ],\r\n" +
	"    \"ManagementIP\":  \"10.240.0.30\"\r\n" +
	"}\r\n"

func utf16LEWithBOM(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := []byte{0xFF, 0xFE}
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	return b
}

func TestHNSNetworksPS51Quirks(t *testing.T) {
	cases := map[string][]byte{
		"single object, CRLF, two spaces": []byte(ps51Network),
		"array":                           []byte("[" + ps51Network + "]"),
		"UTF-16LE with BOM (Out-File)":    utf16LEWithBOM(ps51Network),
		"UTF-8 BOM":                       append([]byte{0xEF, 0xBB, 0xBF}, ps51Network...),
		"depth-2 subnet as string": []byte(`{"Name":"l2bridge","Type":"L2Bridge",` +
			`"Subnets":["@{AddressPrefix=10.200.2.0/24; GatewayAddress=10.200.2.1}"]}`),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			ns, err := DecodeHNSNetworks("nodes/win-1/hns-networks.json", in)
			if err != nil {
				t.Fatal(err)
			}
			if len(ns) != 1 || ns[0].Name != "l2bridge" || ns[0].Kind() != "l2bridge" {
				t.Fatalf("got %+v", ns)
			}
			if got := ns[0].Prefixes(); len(got) != 1 || got[0] != "10.200.2.0/24" {
				t.Fatalf("prefixes %v", got)
			}
		})
	}
}

func TestDecodeErrorsNameTheFile(t *testing.T) {
	const file = "nodes/win-1/hns-networks.json"
	cases := map[string]struct {
		in   []byte
		want string
	}{
		"truncated":    {[]byte(ps51Network[:120]), "ends early"},
		"not UTF-8":    {[]byte("{\"Name\": \"\xc3\x28\"}"), "not UTF-8"},
		"odd UTF-16":   {append(utf16LEWithBOM(ps51Network), 'x'), "odd number of bytes"},
		"not networks": {[]byte(`{"Foo": 1}`), "neither Name nor ID"},
		"list view":    {[]byte("Name : l2bridge\r\nType : L2Bridge\r\n"), "not valid JSON"},
		"scalar":       {[]byte(`42`), "expected JSON objects"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeHNSNetworks(file, c.in)
			if err == nil {
				t.Fatal("accepted bad input")
			}
			var de *Error
			if !errors.As(err, &de) || de.File != file {
				t.Fatalf("error does not name the file: %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func TestEmptyOutputIsEmptyList(t *testing.T) {
	ns, err := DecodeRoutes("r", []byte("\r\n"))
	if err != nil || len(ns) != 0 {
		t.Fatalf("got %v, %v", ns, err)
	}
}

func TestServicesEnumsAndStrings(t *testing.T) {
	// Get-Service | ConvertTo-Json writes enums as numbers; Win32_Service as words.
	in := `[{"Name":"kubelet","Status":4,"StartType":2},` +
		`{"Name":"kube-proxy","State":"Stopped","StartMode":"Manual"},` +
		`{"Name":"containerd","State":"Running","StartMode":"Auto","AppEnvironmentExtra":"KUBE_NETWORK=l2bridge"}]`
	ss, err := DecodeServices("s", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ status, start string }{{"Running", "Automatic"}, {"Stopped", "Manual"}, {"Running", "Automatic"}}
	for i, w := range want {
		if ss[i].Status != w.status || ss[i].StartType != w.start {
			t.Errorf("%s: got %s/%s want %s/%s", ss[i].Name, ss[i].Status, ss[i].StartType, w.status, w.start)
		}
	}
	if len(ss[2].AppEnvironmentExtra) != 1 {
		t.Errorf("single string not read as a list: %v", ss[2].AppEnvironmentExtra)
	}
	if s, ok := FindService(ss, "KubeProxy", "kube-proxy"); !ok || s.Name != "kube-proxy" {
		t.Errorf("FindService: %v %v", s, ok)
	}
}

func TestImagesShapes(t *testing.T) {
	docker := `[{"Id":"sha256:1","RepoTags":["kubeletwin/pause:latest"],"Os":"windows","OsVersion":"10.0.17763.1879"}]`
	crictl := `{"status":{"id":"sha256:2","repoTags":["mcr.microsoft.com/oss/kubernetes/pause:3.6"]},"info":{"imageSpec":{"os":"windows","os.version":"10.0.20348.587"}}}
{"status":{"id":"sha256:3","repoTags":[]},"info":{"imageSpec":{"os":"windows"}}}`
	imgs, err := DecodeImages("i", []byte(docker))
	if err != nil || len(imgs) != 1 || imgs[0].OSVersion != "10.0.17763.1879" {
		t.Fatalf("docker: %+v %v", imgs, err)
	}
	if _, ok := FindImage(imgs, "kubeletwin/pause"); !ok {
		t.Error("kubeletwin/pause should match kubeletwin/pause:latest")
	}
	imgs, err = DecodeImages("i", []byte(crictl))
	if err != nil || len(imgs) != 2 || imgs[0].OSVersion != "10.0.20348.587" {
		t.Fatalf("crictl stream: %+v %v", imgs, err)
	}
}

func TestNormalizeRef(t *testing.T) {
	for in, want := range map[string]string{
		"kubeletwin/pause": "docker.io/kubeletwin/pause:latest",
		"busybox":          "docker.io/library/busybox:latest",
		"mcr.microsoft.com/windows/nanoserver:1809": "mcr.microsoft.com/windows/nanoserver:1809",
		"localhost:5000/pause":                      "localhost:5000/pause:latest",
		"mcr.microsoft.com/x@sha256:ab":             "mcr.microsoft.com/x@sha256:ab",
	} {
		if got := NormalizeRef(in); got != want {
			t.Errorf("NormalizeRef(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCNIConfigFlannelDelegate(t *testing.T) {
	in := "{\r\n    \"cniVersion\":  \"0.2.0\",\r\n    \"name\":  \"cbr0\",\r\n    \"type\":  \"flannel\",\r\n" +
		"    \"delegate\":  {\r\n        \"type\":  \"win-bridge\",\r\n        \"dns\":  {\"Nameservers\":  [\"10.96.0.10\"]},\r\n" +
		"        \"policies\":  [{\"Name\": \"EndpointPolicy\", \"Value\": {\"Type\": \"OutBoundNAT\",\r\n" +
		"\t\t\"ExceptionList\": [\"10.244.0.0/16\", \"10.96.0.0/12\"]}},\r\n" +
		"          {\"Name\": \"EndpointPolicy\", \"Value\": {\"Type\": \"ROUTE\", \"DestinationPrefix\": \"10.96.0.0/12\", \"NeedEncap\": true}}]\r\n    }\r\n}\r\n"
	c, err := DecodeCNIConfig("c", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "cbr0" || c.Delegate != "win-bridge" || len(c.ExceptionList) != 2 || c.Nameservers[0] != "10.96.0.10" || c.RoutePrefixes[0] != "10.96.0.0/12" {
		t.Fatalf("got %+v", c)
	}
}

func TestContainerdSandbox(t *testing.T) {
	v2 := "version = 2\r\n[plugins]\r\n  [plugins.\"io.containerd.grpc.v1.cri\"]\r\n    sandbox_image = \"mcr.microsoft.com/oss/kubernetes/pause:3.6\"\r\n"
	v3 := "version = 3\n[plugins.'io.containerd.cri.v1.images'.pinned_images]\n  sandbox = 'registry.k8s.io/pause:3.10'\n"
	for in, want := range map[string]string{v2: "mcr.microsoft.com/oss/kubernetes/pause:3.6", v3: "registry.k8s.io/pause:3.10"} {
		c, err := DecodeContainerdConfig("t", []byte(in))
		if err != nil || c.SandboxImage != want {
			t.Errorf("got %q, %v want %q", c.SandboxImage, err, want)
		}
	}
	if _, err := DecodeContainerdConfig("t", []byte("[plugins\n")); err == nil {
		t.Error("accepted broken TOML")
	}
}

func TestSplitCommandLine(t *testing.T) {
	got := SplitCommandLine(`"C:\k\kubelet.exe" --hostname-override=win-1 --resolv-conf="" --cluster-dns=10.32.0.10 --root-dir "C:\var\lib\kubelet" a\\"b`)
	want := []string{`C:\k\kubelet.exe`, "--hostname-override=win-1", "--resolv-conf=", "--cluster-dns=10.32.0.10", "--root-dir", `C:\var\lib\kubelet`, `a\b`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
	f := Flags(got)
	if f["cluster-dns"] != "10.32.0.10" || f["root-dir"] != `C:\var\lib\kubelet` || f["resolv-conf"] != "" {
		t.Fatalf("flags %v", f)
	}
}

func TestHostBuildAndCompat(t *testing.T) {
	h, err := DecodeHost("h", []byte(`{"ComputerName":"WIN-1","CurrentBuild":"17763","UBR":1879,"LastBootUpTime":"2026-11-29T10:00:00.0000000Z","CollectedAt":"/Date(1764583200000)/"}`))
	if err != nil {
		t.Fatal(err)
	}
	if h.Version() != "10.0.17763.1879" {
		t.Errorf("version %s", h.Version())
	}
	if _, ok := h.BootTime(); !ok {
		t.Error("boot time not parsed")
	}
	if at, ok := h.CollectionTime(); !ok || !at.Equal(time.Date(2025, 12, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("collection time %v, %v", at, ok)
	}
	if Compatible(17763, 20348) || !Compatible(17763, 17763) || !Compatible(26100, 20348) || Compatible(20348, 26100) {
		t.Error("compatibility rule wrong")
	}
	if BuildName(20348) != "ltsc2022" || !strings.Contains(BuildName(17763), "1809") {
		t.Error("build names wrong")
	}
	if _, err := DecodeHost("h", []byte(`{"CurrentBuild":"abc"}`)); err == nil {
		t.Error("accepted a non-numeric build")
	}
}

func TestKubeNodes(t *testing.T) {
	list := `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"win-1","labels":{"kubernetes.io/os":"windows"}},"spec":{"podCIDR":"10.200.2.0/24"}}],"kind":"List","metadata":{"resourceVersion":""}}`
	ns, err := Nodes("cluster/nodes.json", []byte(list))
	if err != nil || len(ns) != 1 || !IsWindows(ns[0]) || ns[0].Spec.PodCIDR != "10.200.2.0/24" {
		t.Fatalf("%+v %v", ns, err)
	}
	if _, err := Nodes("cluster/nodes.json", []byte(`{"kind":"PodList","items":[]}`)); err == nil {
		t.Error("accepted a PodList as nodes")
	}
}
