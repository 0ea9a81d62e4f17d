package evidence

import (
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"testing"
	"testing/fstest"
)

func TestKeysDeclaredOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range All() {
		m := k.Meta()
		if seen[m.Name] {
			t.Errorf("%s declared twice", m.Name)
		}
		seen[m.Name] = true
		if m.Command == "" || m.Format == "" {
			t.Errorf("%s: no command or format for the contract table", m.Name)
		}
		if (m.Scope == Cluster) != (m.Snippet == "") {
			t.Errorf("%s: scope %s with snippet %q", m.Name, m.Scope, m.Snippet)
		}
		if got, ok := Of(k.Path("win-1")); !ok || got.Meta().Name != m.Name {
			t.Errorf("Of(%s) = %v, %v", k.Path("win-1"), got, ok)
		}
		if got, ok := Of(k.Path("win-1") + ErrSuffix); !ok || got.Meta().Name != m.Name {
			t.Errorf("Of(%s.err) = %v, %v", k.Path("win-1"), got, ok)
		}
	}
	if _, ok := Of("nodes/win-1/" + SweepErr); ok {
		t.Error("sweep.err is no key's")
	}
	if _, ok := Of("nodes/win-1/cluster/nodes.json"); ok {
		t.Error("a node path named like a cluster path matched the cluster key")
	}
}

func TestSweepParams(t *testing.T) {
	got := SweepParams(append(SnapshotNodeFiles(), FileEventsSCM, FileEventsHNS, FileHost), map[string]any{ParamMaxBytes: int64(1 << 20), ParamSince: "2026-01-01T00:00:00Z"})
	want := map[string]map[string]any{}
	for _, n := range []string{FileLogKubelet, FileLogKubeProxy, FileLogRuntime, FileLogFlanneld, FileLogStartup} {
		want[n] = map[string]any{ParamMaxBytes: int64(1 << 20), ParamSince: "2026-01-01T00:00:00Z"}
	}
	for _, n := range []string{FileEventsSCM, FileEventsHNS} {
		want[n] = map[string]any{ParamSince: "2026-01-01T00:00:00Z"}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SweepParams = %v\nwant %v", got, want)
	}
	if got := SweepParams([]string{FileHost}, map[string]any{ParamSince: "x"}); len(got) != 0 {
		t.Errorf("a snippet without parameters got %v", got)
	}
}

// TestGet keeps the memo's rules: absent is a MissingError without a reason, a .err that
// is not "exit 0" makes even a present file not collected, a broken file stays broken.
func TestGet(t *testing.T) {
	fsys := fstest.MapFS{
		"nodes/w/routes.json":       {Data: []byte(`[{"DestinationPrefix":"10.0.0.0/24","NextHop":"10.1.0.1"}]`)},
		"nodes/w/images.json":       {Data: []byte(`[]`)},
		"nodes/w/images.json.err":   {Data: []byte("exit 1\ncrictl: cannot connect\n")},
		"nodes/w/processes.json":    {Data: []byte(`[{"Name": "kubelet.exe"`)},
		"nodes/w/services.json":     {Data: []byte(`[]`)},
		"nodes/w/services.json.err": {Data: []byte("exit 0\nwarning only\n")},
	}
	ev := Evidence{FS: fsys, Memo: NewMemo()}
	routes, err := Get(ev, "w", Routes)
	if err != nil || len(routes) != 1 || routes[0].NextHop != "10.1.0.1" {
		t.Errorf("routes: %v, %v", routes, err)
	}
	var miss *MissingError
	if _, err := Get(ev, "w", HNSNetworks); !errors.As(err, &miss) || miss.Why != "" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
	if _, err := Get(ev, "w", Images); !errors.As(err, &miss) || miss.Why == "" {
		t.Errorf("with a failing .err: %v", err)
	}
	if _, err := Get(ev, "w", WindowsServices); err != nil {
		t.Errorf("with an exit 0 .err: %v", err)
	}
	_, err1 := Get(ev, "w", Processes)
	delete(fsys, "nodes/w/processes.json") // the memo answers; the file is not read again
	_, err2 := Get(ev, "w", Processes)
	if err1 == nil || err1 != err2 {
		t.Errorf("broken file: %v then %v", err1, err2)
	}
	if !slices.Contains(SnapshotNodeFiles(), FileLogKubelet) || slices.Contains(SnapshotNodeFiles(), FileHost) {
		t.Errorf("snapshot files %v", SnapshotNodeFiles())
	}
}

// TestMemoForgetsOnErrCompanion: a .err arriving later makes its file not collected.
func TestMemoForgetsOnErrCompanion(t *testing.T) {
	fsys := fstest.MapFS{"nodes/w/images.json": {Data: []byte(`[]`)}}
	ev := Evidence{FS: fsys, Memo: NewMemo()}
	if _, err := Get(ev, "w", Images); err != nil {
		t.Fatal(err)
	}
	fsys["nodes/w/images.json.err"] = &fstest.MapFile{Data: []byte("exit 1\ncrictl failed\n")}
	ev.Memo.Forget("nodes/w/images.json.err")
	if _, err := Get(ev, "w", Images); err == nil {
		t.Error("the memo kept images.json as collected after its .err arrived")
	}
}
