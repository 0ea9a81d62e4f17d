package hostprocess_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// TestKubeletRestartCutsTheExec: the fake kubelet is as strict as the real one about a
// fix that restarts it from inside its own exec. Restarted in place, the stream is cut
// before the fix's frame arrives, so the fix reads as failed although it ran; handed to a
// process of its own (the shipped fix), the frame arrives with the line the engine waits
// on, the restart comes DelaySec later and cuts what is open, and an exec in the same
// pod gets through again once the kubelet is back.
func TestKubeletRestartCutsTheExec(t *testing.T) {
	w := newWorld(t)
	// A containerd node whose kubelet is a service; fix-restart-service changes no file.
	base, meta, _, err := scenarios.Load("pause-containerd-wrong-tag")
	if err != nil {
		t.Fatal(err)
	}
	node := meta.Nodes[0]
	fsys := overlay{base, fstest.MapFS{"after/fix-restart-service/output.txt": {Data: []byte("kubelet restarts\r\n")}}}
	k, fake := w.kubeletFS(t, fsys, node, fakenode.NodeOptions{}, nil)
	tr := dial(t, w.run(t, hostprocess.Options{}), node)
	defer tr.Close()
	restart := func(inPlace bool) (transport.Output, error) {
		script, err := scripts.Sweep([]scripts.Call{{Name: "fix-restart-service", Params: map[string]any{"Name": []string{"kubelet"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if inPlace {
			detach := "if (Test-WtsRestartCutsExec $n) { Restart-WtsServiceDetached -Name $n; continue }"
			if !strings.Contains(script, detach) {
				t.Fatal("fix-restart-service no longer detaches the way this test cuts out")
			}
			script = strings.Replace(script, detach, "", 1)
		}
		return tr.Run(t.Context(), transport.Command{CommandLine: scripts.CommandLine(), Stdin: []byte(script)})
	}
	pid := fake.ServiceProcess("kubelet")
	if pid == 0 {
		t.Fatal("the scenario's services.json has no kubelet process")
	}

	out, err := restart(false)
	results, _, serr := scripts.Split(out.Stdout)
	if err != nil || serr != nil || len(results) != 1 || results[0].Exit != 0 {
		t.Fatalf("the detached restart: %v %v %+v", err, serr, results)
	}
	rs := scripts.DetachedRestarts(string(results[0].Stdout))
	if len(rs) != 1 || rs[0].Service != "kubelet" || rs[0].ProcessID != pid {
		t.Fatalf("the fix's output %q does not name the kubelet's process %d", results[0].Stdout, pid)
	}
	waitEvent(t, k.Events, "up kubelet")
	if fake.ServiceProcess("kubelet") == pid {
		t.Error("the kubelet came back as the same process")
	}

	// In place: the restart ends the stream the fix runs in.
	out, err = restart(true)
	if results, _, _ := scripts.Split(out.Stdout); err == nil && len(results) == 1 {
		t.Fatalf("a restart in place came back whole: %+v", results)
	}
	waitEvent(t, func() []string { return k.Events()[len(k.Events())-1:] }, "up kubelet")
	if _, err := restart(false); err != nil {
		t.Fatalf("an exec in the same pod after the kubelet is back: %v", err)
	}
}

// overlay is a scenario with files added.
type overlay struct {
	fs.FS
	extra fstest.MapFS
}

func (o overlay) Open(name string) (fs.File, error) {
	if f, err := o.extra.Open(name); err == nil {
		return f, nil
	}
	return o.FS.Open(name)
}

// waitEvent waits (bounded) until events holds e.
func waitEvent(t *testing.T, events func() []string, e string) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if slices.Contains(events(), e) {
			return
		}
	}
	t.Fatalf("no %q in %v", e, events())
}
