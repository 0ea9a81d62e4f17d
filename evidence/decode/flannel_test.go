package decode

import (
	"strings"
	"testing"
)

// ps51Flannel is flannel.json as PS 5.1 prints it on the SDN overlay layout: subnet.env
// with flanneld's LF lines (flannel pkg/subnet/subnet.go), sourceVipRequest.json as
// helper.psm1 GetSourceVip's here-string left it (Out-File: CRLF), and host-local's
// indented CNI 0.2.0 answer (containernetworking/cni pkg/types/020 PrintTo).
const ps51Flannel = "{\r\n" +
	"    \"Files\":  [\r\n" +
	"                  {\r\n" +
	"                      \"Path\":  \"C:\\\\run\\\\flannel\\\\subnet.env\",\r\n" +
	"                      \"LastWriteTime\":  \"2022-03-01T07:30:41.2500000Z\",\r\n" +
	"                      \"Content\":  \"FLANNEL_NETWORK=10.244.0.0/16\\nFLANNEL_SUBNET=10.244.2.1/24\\nFLANNEL_MTU=1450\\nFLANNEL_IPMASQ=true\\n\"\r\n" +
	"                  },\r\n" +
	"                  {\r\n" +
	"                      \"Path\":  \"C:\\\\k\\\\sourceVip.json\",\r\n" +
	"                      \"LastWriteTime\":  \"2022-03-01T07:30:44.0000000Z\",\r\n" +
	"                      \"Content\":  \"{\\n    \\\"cniVersion\\\": \\\"0.2.0\\\",\\n    \\\"ip4\\\": {\\n        \\\"ip\\\": \\\"10.244.2.2/24\\\",\\n        \\\"gateway\\\": \\\"10.244.2.1\\\"\\n    },\\n    \\\"dns\\\": {}\\n}\\r\\n\"\r\n" +
	"                  },\r\n" +
	"                  {\r\n" +
	"                      \"Path\":  \"C:\\\\k\\\\sourceVipRequest.json\",\r\n" +
	"                      \"LastWriteTime\":  \"2022-03-01T07:30:43.0000000Z\",\r\n" +
	"                      \"Content\":  \"        {\\\"cniVersion\\\": \\\"0.2.0\\\", \\\"name\\\": \\\"vxlan0\\\", \\\"ipam\\\":{\\\"type\\\":\\\"host-local\\\",\\\"ranges\\\":[[{\\\"subnet\\\":\\\"10.244.2.0/24\\\"}]],\\\"dataDir\\\":\\\"/var/lib/cni/networks\\\"}}\\r\\n\"\r\n" +
	"                  }\r\n" +
	"              ]\r\n" +
	"}\r\n"

func TestDecodeFlannelFiles(t *testing.T) {
	for name, b := range map[string][]byte{"utf8": []byte(ps51Flannel), "utf16": utf16LEWithBOM(ps51Flannel)} {
		f, err := DecodeFlannelFiles("flannel.json", b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		env, file, ok, err := f.SubnetEnv()
		if !ok || err != nil || env.Network != "10.244.0.0/16" || env.Subnet != "10.244.2.1/24" || env.MTU != 1450 || !env.IPMasq ||
			file.Path != `C:\run\flannel\subnet.env` {
			t.Errorf("%s: subnet.env %+v %v %v", name, env, ok, err)
		}
		vips := f.SourceVIPs()
		if len(vips) != 1 || vips[0].Dir != `C:\k` || vips[0].Address.String() != "10.244.2.2/24" ||
			vips[0].RequestSubnet.String() != "10.244.2.0/24" || vips[0].Problem != "" {
			t.Errorf("%s: source VIPs %+v", name, vips)
		}
	}
}

// TestSourceVIPShapes: sig-windows-tools asks host-local for CNI 0.3.0 (ips[].address);
// one file alone (PS 5.1 prints a one-item list as an object when it lost its @()); an
// empty answer and host-local's error answer hold no address; a node without flannel
// has an empty list.
func TestSourceVIPShapes(t *testing.T) {
	one := `{"Files": {"Path": "C:\\sourcevip\\sourceVip.json", "Content": "{\"cniVersion\": \"0.3.0\", \"ips\": [{\"version\": \"4\", \"address\": \"10.244.1.2/24\", \"gateway\": \"10.244.1.1\"}], \"dns\": {}}"}}`
	f, err := DecodeFlannelFiles("flannel.json", []byte(one))
	if err != nil {
		t.Fatal(err)
	}
	if v := f.SourceVIPs(); len(v) != 1 || v[0].Address.String() != "10.244.1.2/24" || v[0].Request.Path != "" || v[0].RequestSubnet.IsValid() {
		t.Errorf("0.3.0 answer: %+v", v)
	}
	if _, _, ok, _ := f.SubnetEnv(); ok {
		t.Error("no subnet.env was collected")
	}
	for content, want := range map[string]string{
		"": "empty",
		`{"code": 11, "msg": "no IP addresses available in range set"}`: "no IP addresses available",
		`{"cniVersion": "0.2.0", "dns": {}}`:                            "no ip4.ip",
		`not json`:                                                      "not JSON",
	} {
		if _, why := hostLocalAddress(content); !strings.Contains(why, want) {
			t.Errorf("%q: problem %q, want %q", content, why, want)
		}
	}
	empty, err := DecodeFlannelFiles("flannel.json", []byte("{\r\n    \"Files\":  [\r\n\r\n              ]\r\n}\r\n"))
	if err != nil || len(empty.Files) != 0 || len(empty.SourceVIPs()) != 0 {
		t.Errorf("no flannel: %+v %v", empty, err)
	}
}

func TestDecodeFlannelFilesRefuses(t *testing.T) {
	for _, b := range []string{`[]`, `{"Files": [{"Content": "x"}]}`, `{"Files": "C:\\k"}`} {
		if _, err := DecodeFlannelFiles("flannel.json", []byte(b)); err == nil {
			t.Errorf("%s: accepted", b)
		}
	}
	f, err := DecodeFlannelFiles("flannel.json", []byte(`{"Files": [{"Path": "C:\\run\\flannel\\subnet.env", "Content": "garbage"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := f.SubnetEnv(); !ok || err == nil {
		t.Errorf("a subnet.env that is not KEY=VALUE must say so: %v %v", ok, err)
	}
}

func FuzzFlannelFiles(f *testing.F) {
	f.Add([]byte(ps51Flannel))
	f.Add([]byte(`{"Files": {"Path": "C:\\sourcevip\\sourceVip.json", "Content": "{\"ips\": [{\"address\": \"10.244.1.2/24\"}]}"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ff, err := DecodeFlannelFiles("f", b)
		if err != nil {
			return
		}
		_, _, _, _ = ff.SubnetEnv()
		for _, v := range ff.SourceVIPs() {
			if v.Problem != "" && v.Address.IsValid() {
				t.Fatalf("an address and a problem: %+v", v)
			}
		}
	})
}
