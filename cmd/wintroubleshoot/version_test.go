package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionFromBuildInfo: the version is the build's own (module version, VCS revision
// and time, local changes, Go version), not a "dev" every build shared; release.sh's
// stamp wins over "(devel)".
func TestVersionFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/wintroubleshoot/wintroubleshoot", Version: "v0.3.1"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	v := versionFrom(bi, "")
	want := versionInfo{Version: "v0.3.1", Revision: "0123abcd", Time: "2026-11-30T10:00:00Z", Modified: true, GoVersion: "go1.26.0"}
	if v != want {
		t.Fatalf("got %+v, want %+v", v, want)
	}
	if s := v.String(); s != "wintroubleshoot v0.3.1 (revision 0123abcd, 2026-11-30T10:00:00Z, with local changes, go1.26.0)" {
		t.Errorf("text %q", s)
	}
	if v := versionFrom(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v1.0.0"); v.Version != "v1.0.0" {
		t.Errorf("release.sh's stamp lost: %+v", v)
	}
	if v := versionFrom(nil, ""); v.Version != "(devel)" {
		t.Errorf("no build info: %+v", v)
	}
}

// TestVersionCommands: version, --version and version -o json all print the running
// binary's build information, the JSON as one object with the Go version that built it.
func TestVersionCommands(t *testing.T) {
	code, out, errOut := run(t, "version", "-o", "json")
	if code != 0 {
		t.Fatalf("version -o json: exit %d: %s", code, errOut)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("version -o json is not JSON: %v\n%s", err, out)
	}
	if v.GoVersion != runtime.Version() || v.Version == "" || v.Version == "dev" {
		t.Errorf("version -o json: %+v (Go %s)", v, runtime.Version())
	}
	_, text, _ := run(t, "version")
	_, flag, _ := run(t, "--version")
	if text != flag || !strings.HasPrefix(text, "wintroubleshoot "+v.Version) || !strings.Contains(text, runtime.Version()) {
		t.Errorf("version %q, --version %q", text, flag)
	}
	if code, _, errOut := run(t, "version", "-o", "yaml"); code != 2 || !strings.Contains(errOut, "--output") {
		t.Errorf("version -o yaml: exit %d: %s", code, errOut)
	}
}
