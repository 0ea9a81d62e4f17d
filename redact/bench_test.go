package redact

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// klogLines is log text like a kubelet's: klog headers, quoted fields, a struct dump.
func klogLines(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "I0301 08:13:%02d.702388    2904 kubelet.go:2092] \"SyncLoop (PLEG): event for pod\" pod=\"default/win-webserver-%d\" event=&{ID:6cc6e2aa-2164 Type:ContainerStarted}\n", i%60, i)
	}
	return b.Bytes()
}

// psJSON is ConvertTo-Json output of many small objects, as hns-endpoints.json is.
func psJSON(size int) []byte {
	var b bytes.Buffer
	b.WriteString("[\r\n")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\r\n")
		}
		fmt.Fprintf(&b, "    {\r\n        \"ID\":  \"%08d-aaaa-bbbb-cccc-dddddddddddd\",\r\n        \"Name\":  \"Ethernet\",\r\n        \"IPAddress\":  \"10.244.%d.%d\",\r\n        \"Policies\":  [\r\n            {\r\n                \"Type\":  \"OutBoundNAT\",\r\n                \"ExceptionList\":  [\"10.244.0.0/16\", \"10.96.0.0/12\"]\r\n            }\r\n        ],\r\n        \"IsRemoteEndpoint\":  false\r\n    }", i, i%256, i%250)
	}
	b.WriteString("\r\n]\r\n")
	return b.Bytes()
}

func benchFilter(b *testing.B, name string, in []byte) {
	r := Default()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, err := r.Filter(io.Discard, bytes.NewReader(in), name); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRedactLog(b *testing.B)  { benchFilter(b, "kubelet.log", klogLines(32<<20)) }
func BenchmarkRedactJSON(b *testing.B) { benchFilter(b, "hns-endpoints.json", psJSON(16<<20)) }

func TestBenchInputsAreClean(t *testing.T) {
	for name, in := range map[string][]byte{"a.log": klogLines(1 << 20), "b.json": psJSON(1 << 20)} {
		if out := Default().Bytes(name, in); !bytes.Equal(out, in) || strings.Contains(string(out), Replacement) {
			t.Errorf("%s: the benchmark input is not clean", name)
		}
	}
}
