package importer_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestOverlayReadsPastesInJSONSlots: a folder whose hns-networks.json is a pasted list
// view is judged as if it held the JSON.
func TestOverlayReadsPastesInJSONSlots(t *testing.T) {
	tree, _, _, err := scenarios.Load("healthy-sdn-l2bridge-docker")
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: tree}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files := copyTree(t, tree)
	p := evidence.NodeFile("win-1", evidence.FileHNSNetworks)
	recs, err := paste.RecordsFromJSON(files[p].Data)
	if err != nil {
		t.Fatal(err)
	}
	files[p] = &fstest.MapFile{Data: []byte("PS C:\\k> Get-HnsNetwork\n" + paste.FormatList(recs, 100, paste.ConsoleCut, 0))}
	if _, err := evidence.HNSNetworks.Decode(p, files[p].Data); err == nil {
		t.Fatal("the paste decodes as JSON")
	}
	over, rep, err := importer.Overlay(files)
	if err != nil || rep == nil {
		t.Fatalf("overlay: %v, report %v", err, rep)
	}
	got, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: over}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if same, _ := compare(t, "overlay", want, got); same != len(want) {
		t.Errorf("%d of %d findings equal", same, len(want))
	}
	// A folder without pastes comes back as it is.
	if same, rep, err := importer.Overlay(tree); err != nil || rep != nil || same == nil {
		t.Errorf("no paste: %v %v", rep, err)
	}
}
