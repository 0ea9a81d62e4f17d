package importer_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
)

// FuzzImport: any paste imports without a panic, every file it writes is evidence its
// own decoder accepts, and the report encodes.
func FuzzImport(f *testing.F) {
	f.Add("PS C:\\k> Get-HnsNetwork\n\nName    : nat\nType    : nat\nSubnets : {@{AddressPrefix=172.24.144.0/20}}\n")
	f.Add("PS C:\\k> Get-Service kubelet | Format-Table Status, StartType, Name\n\nStatus  StartType Name\n------  --------- ----\nRunning Automatic kubelet\n")
	f.Add("$ kubectl describe node win-1\nName:               win-1\nTaints:             os=windows:NoSchedule\nConditions:\n  Type   Status\n  Ready  True\nAddresses:\n  InternalIP:  10.0.0.4\nPodCIDR:                      10.244.1.0/24\n")
	f.Add("[win-1]: PS C:\\> docker images\nREPOSITORY   TAG   IMAGE ID\nkubeletwin/pause   latest   e9bbec97e222\n")
	f.Add("Log file created at: 2022/03/01 07:13:40\nRunning on machine: win-1\nI0301 07:13:40.106351    3416 kubelet.go:416] Version: v1.20.15\n")
	// The fixtures of the formats added later: describe pod, crictl, ctr, netsh, the Net
	// cmdlets, systeminfo.
	names, _ := filepath.Glob(filepath.Join("testdata", "pastes", "*.txt"))
	corpus, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.txt"))
	names = append(names, corpus...)
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		res, err := importer.Import([]importer.Input{{Name: "fuzz", Data: []byte(s)}}, importer.Options{})
		if err != nil {
			return // a node name the paste gives that is not one
		}
		for p, b := range res.Files {
			k, ok := evidence.Of(p)
			if !ok {
				t.Fatalf("wrote %s, which no evidence key declares", p)
			}
			if err := k.Validate(p, b); err != nil {
				t.Fatalf("wrote %s that its decoder refuses: %v", p, err)
			}
		}
		if _, err := res.ReportJSON(); err != nil {
			t.Fatal(err)
		}
	})
}
