package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// pastedTranscript is what a customer sends: two commands with their prompts, the HNS
// networks wrapped at 100 columns, a Get-Service table, and a line nobody can read.
const pastedTranscript = `PS C:\k> Get-HnsNetwork

ActivityId             : 29E18A85-0FFC-4C65-909D-1E78BFC1A9D0
ID                     : 77DC9E07-686B-4AC7-BAB2-86E95911B13C
Name                   : l2bridge
Extensions             : {@{Id=E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A; IsEnabled=False; Name=Microsoft
                         Windows-Filterplattform}, @{Id=EA24CD6C-D17A-4348-9190-09F0D5BE83DD;
                         IsEnabled=True; Name=Microsoft-NDIS-Aufzeichnung}}
State                  : 1
Subnets                : {@{AdditionalParams=; AddressPrefix=10.200.2.0/24; GatewayAddress=10.200.2.1;
                         Policies=System.Object[]; State=0}}
Type                   : L2Bridge

PS C:\k> Get-Service kubelet, docker | Format-Table Status, StartType, Name

Status  StartType Name
------  --------- ----
Running Automatic docker
Stopped    Manual kubelet

PS C:\k> Get-NetNat
Get-NetNat : Der Zugriff wurde verweigert.
`

func runIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	streams, in, out, errOut := genericiooptions.NewTestIOStreams()
	in.WriteString(stdin)
	code := Run(context.Background(), streams, args)
	return code, out.String(), errOut.String()
}

func TestImportWritesEvidenceAndReport(t *testing.T) {
	paste := filepath.Join(t.TempDir(), "ticket.txt")
	if err := os.WriteFile(paste, []byte(pastedTranscript), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "case")
	code, _, errOut := runIn(t, "", "import", paste, "--out", dir, "--node", "win-1")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	for _, p := range []string{"nodes/win-1/hns-networks.json", "nodes/win-1/services.json", "import.json"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("no %s: %v", p, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "import.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Node   string
		Blocks []struct {
			Command, Recognized, Evidence, Recollect string
			FirstLines                               []string
		}
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Node != "win-1" || len(rep.Blocks) != 3 || rep.Blocks[2].Recognized != "a PowerShell error" ||
		len(rep.Blocks[2].FirstLines) != 1 || !strings.Contains(rep.Blocks[0].Recollect, "ConvertTo-Json") {
		t.Errorf("import.json: %s", b)
	}
	// The folder is evidence: analyze judges it, import.json included.
	code, out, errOut := runIn(t, "", "analyze", dir, "-o", "json")
	if code > 1 || !strings.Contains(out, `"probe": "HNS-NETWORK"`) {
		t.Errorf("analyze: exit %d\n%s\n%s", code, out, errOut)
	}
	// A folder that already holds something is not written into.
	if code, _, errOut := runIn(t, "", "import", paste, "--out", dir); code != 2 || !strings.Contains(errOut, "not empty") {
		t.Errorf("import into a full folder: exit %d: %s", code, errOut)
	}
}

func TestImportStdinAnalyze(t *testing.T) {
	code, out, errOut := runIn(t, pastedTranscript, "import", "-", "--analyze", "--node", "win-1", "-o", "json")
	if code > 1 || !strings.Contains(out, `"probe": "SVC-RUNTIME"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "Get-HnsNetwork list view -> nodes/win-1/hns-networks.json") {
		t.Errorf("summary: %s", errOut)
	}
	// A skip says what the paste lacked and the exact command for it.
	if !strings.Contains(out, "nodes/win-1/processes.json: not in the pasted output: re-collect with `Get-CimInstance Win32_Process") {
		t.Errorf("skips do not name the missing evidence:\n%s", out)
	}
}

func TestImportUsage(t *testing.T) {
	for _, args := range [][]string{
		{"import", "-"},
		{"import", "-", "--analyze", "--node", "Win_1"},
		{"import", filepath.Join(t.TempDir(), "missing.txt"), "--analyze"},
		{"import"},
	} {
		if code, _, _ := runIn(t, pastedTranscript, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestImportAnalyzeOneWayIn: `import --analyze` and `analyze` on the folder `import
// --out` wrote give the same findings, with the same "re-collect with" hints, for a
// paste that shows only part of the evidence (a node table, a Get-Service table without
// StartType).
func TestImportAnalyzeOneWayIn(t *testing.T) {
	dir := t.TempDir()
	paste := filepath.Join(dir, "ticket.txt")
	text := "user@bastion:~$ kubectl get nodes -o wide\n" +
		"NAME    STATUS     ROLES    AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE                         KERNEL-VERSION    CONTAINER-RUNTIME\n" +
		"win-1   NotReady   <none>   17h   v1.29.1   10.240.0.22   <none>        Windows Server 2022 Datacenter   10.0.20348.2227   containerd://1.7.13\n\n" +
		"PS C:\\> Get-Service kubelet, kube-proxy, containerd\n\n" +
		"Status   Name               DisplayName\n------   ----               -----------\n" +
		"Stopped  containerd         containerd\nRunning  kube-proxy         kube-proxy\nStopped  kubelet            kubelet\n"
	if err := os.WriteFile(paste, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, direct, errOut := run(t, "import", paste, "--analyze", "-o", "json")
	out := filepath.Join(dir, "case")
	if code, _, e := run(t, "import", paste, "--out", out); code != 0 {
		t.Fatalf("import --out: exit %d: %s", code, e)
	}
	_, folder, _ := run(t, "analyze", out, "-o", "json")
	findings := func(s string) string {
		var doc struct{ Findings json.RawMessage }
		if err := json.Unmarshal([]byte(s), &doc); err != nil {
			t.Fatalf("%v: %s %s", err, s, errOut)
		}
		return string(doc.Findings)
	}
	a, b := findings(direct), findings(folder)
	if a != b {
		t.Errorf("import --analyze and analyze DIR differ:\n%s\n%s", a, b)
	}
	for _, want := range []string{`"NODE-READY"`, "re-collect with", "StartType"} {
		if !strings.Contains(a, want) {
			t.Errorf("findings lack %s: %s", want, a)
		}
	}
}
