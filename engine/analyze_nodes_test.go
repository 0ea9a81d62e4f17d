package engine

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestAnalyzeNodesThatAreNotFolders: a file nodes/win-1 is reported, not dropped, and a
// nodes that is a file is an error naming it, not "no node evidence".
func TestAnalyzeNodesThatAreNotFolders(t *testing.T) {
	fs, err := Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fstest.MapFS{"nodes/win-1": {Data: []byte("{}")}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Node != "win-1" || fs[0].Status != probes.Error || !strings.Contains(fs[0].Summary, "is a file, not a folder") {
		t.Errorf("a file nodes/win-1: got %+v", fs)
	}
	_, err = Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fstest.MapFS{"nodes": {Data: []byte("x")}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "nodes is a file") {
		t.Errorf("nodes as a file: %v", err)
	}
}
