package importer

import (
	"strings"
	"testing"
)

// TestImportRedactsThePaste: a paste is redacted before it is read, so neither the
// evidence files nor import.json (which quotes pasted lines) hold its secrets. Before,
// both held them as pasted.
func TestImportRedactsThePaste(t *testing.T) {
	paste := "PS C:\\> Get-Service kubelet\r\n\r\nStatus   Name               DisplayName\r\n------   ----               -----------\r\nStopped  kubelet            kubelet\r\n\r\n" +
		"PS C:\\> Get-Content C:\\k\\kubelet.log -Tail 2\r\nI0301 08:13:02.702388    2904 kubelet.go:1] SECRET_KEY=SeedPaste-71\r\n" +
		"I0301 08:13:03.702388    2904 kubelet.go:1] token ghp_0123456789abcdefghijABCDEFGHIJ012345\r\n"
	res, err := Import([]Input{{Name: "ticket.txt", Data: []byte(paste)}}, Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := res.ReportJSON()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string][]byte{ReportFile: rep}
	for p, b := range res.Files {
		all[p] = b
	}
	for p, b := range all {
		for _, s := range []string{"SeedPaste-71", "0123456789abcdefghij"} {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q:\n%s", p, s, b)
			}
		}
	}
	if len(res.Files) == 0 {
		t.Fatal("the paste gave no evidence")
	}
}
