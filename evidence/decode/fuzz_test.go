package decode

import "testing"

// The decoders read files from customers' nodes: whatever the bytes, they must return a
// value or an error, never panic or hang.

func FuzzHNSNetworks(f *testing.F) {
	f.Add([]byte(ps51Network))
	f.Add(utf16LEWithBOM(ps51Network))
	f.Add([]byte(`[{"Name":"nat","Type":"NAT","Subnets":["@{AddressPrefix=172.24.144.0/20}"]}]`))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = DecodeHNSNetworks("f", b) })
}

func FuzzServices(f *testing.F) {
	f.Add([]byte(`[{"Name":"kubelet","Status":4,"StartType":2}]`))
	f.Add([]byte(`{"Name":"docker","State":"Running","StartMode":"Auto","AppEnvironmentExtra":["A=1"]}`))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = DecodeServices("f", b) })
}

func FuzzImages(f *testing.F) {
	f.Add([]byte(`[{"Id":"sha256:1","RepoTags":["a:b"],"OsVersion":"10.0.17763.1"}]`))
	f.Add([]byte(`{"status":{"id":"x","repoTags":["a"]},"info":{"imageSpec":{"os.version":"10.0.20348.1"}}}`))
	f.Add([]byte(`{"images":[{"id":"x","repoTags":["a"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = DecodeImages("f", b) })
}

func FuzzCNIConfig(f *testing.F) {
	f.Add([]byte(`{"name":"cbr0","type":"flannel","delegate":{"type":"win-bridge","dns":{"Nameservers":["10.96.0.10"]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = DecodeCNIConfig("f", b) })
}

func FuzzRoutesAndHost(f *testing.F) {
	f.Add([]byte(`[{"DestinationPrefix":"10.200.0.0/24","NextHop":"10.240.0.20","ifIndex":5,"RouteMetric":300}]`))
	f.Add([]byte(`{"CurrentBuild":"17763","UBR":1,"LastBootUpTime":"/Date(1700000000000)/"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeRoutes("f", b)
		_, _ = DecodeHost("f", b)
		_, _ = DecodeIPAddresses("f", b)
		_, _ = DecodeProcesses("f", b)
	})
}

func FuzzContainerdConfig(f *testing.F) {
	f.Add([]byte("[plugins.\"io.containerd.grpc.v1.cri\"]\nsandbox_image = \"x\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = DecodeContainerdConfig("f", b) })
}

func FuzzSplitCommandLine(f *testing.F) {
	f.Add(`"C:\k\kubelet.exe" --a="b c" \\"x`)
	f.Fuzz(func(t *testing.T, s string) { _ = Flags(SplitCommandLine(s)) })
}
