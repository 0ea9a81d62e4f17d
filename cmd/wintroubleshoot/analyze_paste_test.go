package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeFolderOfPastes: a folder a customer filled with console text in the JSON
// slots is imported in memory, not refused as "not valid JSON".
func TestAnalyzeFolderOfPastes(t *testing.T) {
	dir := t.TempDir()
	node := filepath.Join(dir, "nodes", "win-1")
	if err := os.MkdirAll(node, 0o755); err != nil {
		t.Fatal(err)
	}
	list := "Name    : l2bridge\nType    : L2Bridge\nSubnets : {@{AddressPrefix=10.200.2.0/24; GatewayAddress=10.200.2.1}}\n\n"
	if err := os.WriteFile(filepath.Join(node, "hns-networks.json"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "analyze", dir, "-o", "json")
	if code == 2 || strings.Contains(out+errOut, "not valid JSON") {
		t.Fatalf("exit %d: the paste was refused\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "pasted console output") {
		t.Errorf("no note that the folder held pastes: %s", errOut)
	}
}
