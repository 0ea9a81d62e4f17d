package probes_test

import (
	"os"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestReadmeTable: README.md's "What it checks" is the registry's table.
func TestReadmeTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	md := probes.Default().Markdown()
	if !strings.Contains(string(b), probes.TableBegin+md+probes.TableEnd) {
		t.Error("README.md's probe table is stale: run go run ./fixtures/scenarios/gen from the repository root")
	}
	for _, id := range probes.Default().IDs() {
		if !strings.Contains(md, "| "+id+" |") {
			t.Errorf("the table lacks %s", id)
		}
	}
}
