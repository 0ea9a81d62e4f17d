package evidence

import (
	"strings"
	"testing"
)

func TestEvidenceMissingCarriesWhy(t *testing.T) {
	tr := NewTree()
	tr.Put("nodes/win-1/hns-networks.json.err", []byte("exit 1\nGet-HnsNetwork : not recognized\n"))
	tr.Put("nodes/win-2/sweep.err", []byte("winrm 10.0.0.2:5986: connect: connection refused\n"))
	ev := tr.Evidence()
	_, err := ev.Read("nodes/win-1/hns-networks.json")
	if err == nil || !strings.Contains(err.Error(), "exit 1: Get-HnsNetwork : not recognized") {
		t.Fatalf("got %v", err)
	}
	_, err = ev.Read("nodes/win-2/routes.json")
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("got %v", err)
	}
	if got := ev.Nodes(); len(got) != 2 || got[0] != "win-1" {
		t.Fatalf("nodes %v", got)
	}
}
