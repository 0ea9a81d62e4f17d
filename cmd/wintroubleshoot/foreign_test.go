package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// collectlogsFolder is a small collectlogs.ps1 output folder (UTF-8 here; the reader
// takes the UTF-16 the script writes too, see ingest/foreign).
func collectlogsFolder(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"network.txt": "\nName     Type     Id                                   AddressPrefix\n----     ----     --                                   -------------\ncbr0     L2Bridge 6E6D5F3A-0C4B-4F4E-9A44-0C3B1A2E7D11 {10.200.2.0/24}\n\n" +
			`[{"ID": "6E6D5F3A-0C4B-4F4E-9A44-0C3B1A2E7D11", "Name": "cbr0", "Type": "L2Bridge", "Subnets": [{"AddressPrefix": "10.200.2.0/24", "GatewayAddress": "10.200.2.1"}]}]` + "\n",
		"endpoint.txt":       "",
		"ip.txt":             "\nWindows IP Configuration\n\n   Host Name . . . . . . . . . . . . : WIN-1\n\nEthernet adapter vEthernet (Ethernet):\n\n   IPv4 Address. . . . . . . . . . . : 10.240.0.30(Preferred) \n   Subnet Mask . . . . . . . . . . . : 255.255.0.0\n",
		"routes.txt":         "===========================================================================\nActive Routes:\nNetwork Destination        Netmask          Gateway       Interface  Metric\n          0.0.0.0          0.0.0.0       10.240.0.1     10.240.0.30     15\n===========================================================================\n",
		"winevt/System.evtx": "ElfFile\x00",
		"brand-new.txt":      "a file no version writes\n",
	}
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestAnalyzeCollectlogsFolder: analyze names the collector and version it recognized and
// the files it did not, and each skip says what the bundle lacks and what to collect.
func TestAnalyzeCollectlogsFolder(t *testing.T) {
	code, out, errOut := run(t, "analyze", collectlogsFolder(t), "-o", "json")
	if code == 2 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"recognized collectlogs.ps1, before 2022-09", "node win-1 (ipconfig's Host Name in ip.txt)", "not recognized (1): brand-new.txt"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "collectlogs.ps1 does not save it") || !strings.Contains(out, "collectlogs.ps1 (before 2022-09") {
		t.Errorf("the report does not say what the bundle lacks, or which collector it was:\n%s", out)
	}
}

// TestImportCollectlogsFolder: import writes the evidence the bundle maps to, and
// foreign.json saying what was read.
func TestImportCollectlogsFolder(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "case")
	code, out, errOut := run(t, "import", collectlogsFolder(t), "--out", dst)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, p := range []string{"nodes/win-1/hns-networks.json", "nodes/win-1/ip-addresses.json", "nodes/win-1/routes.json", "foreign.json"} {
		if _, err := os.Stat(filepath.Join(dst, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
}
