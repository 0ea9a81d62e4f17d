package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// TestHostProcessPodIsAnnounced: with no node credentials, --transport auto used to
// create privileged HostProcess pods without a word. Now --report says, on stderr and
// before the pod, where (namespace, node), what (SYSTEM, the image) and why;
// --no-hostprocess creates none, and the report says why the node was not reached.
func TestHostProcessPodIsAnnounced(t *testing.T) {
	cl, cs, tlsCfg := kubeletCluster(t)
	fsys, meta, _, err := scenarios.Load("healthy-containerd-overlay")
	if err != nil {
		t.Fatal(err)
	}
	node := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: meta.Nodes[0]})
	k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: "win-a", Client: cs, TLS: tlsCfg, Responder: node})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	t.Setenv("WTS_PASSWORD", "")

	code, out, errOut := run(t, "--report", "-o", "json", "--kubeconfig", cl.Kubeconfig, "--no-hostprocess")
	if code != 3 || len(node.Commands()) != 0 {
		t.Fatalf("--no-hostprocess: exit %d, %d commands reached the node\n%s", code, len(node.Commands()), errOut)
	}
	if !json.Valid([]byte(out)) || !strings.Contains(out, "forbidden by --no-hostprocess") {
		t.Errorf("the report does not say why win-a was not reached:\n%.2000s", out)
	}
	if strings.Contains(errOut, "Create a HostProcess pod") {
		t.Errorf("--no-hostprocess still announced a pod:\n%s", errOut)
	}

	code, _, errOut = run(t, "--report", "-o", "json", "--kubeconfig", cl.Kubeconfig)
	if (code != 0 && code != 1) || len(node.Commands()) == 0 {
		t.Fatalf("default: exit %d, %d commands\n%s", code, len(node.Commands()), errOut)
	}
	for _, want := range []string{"Create a HostProcess pod on node win-a in namespace default", `NT AUTHORITY\SYSTEM`,
		hostprocess.DefaultImage, "no node credentials", "--no-hostprocess"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(errOut, "Create a HostProcess pod"); n != 1 {
		t.Errorf("announced %d times, want once per run", n)
	}
}

// TestPodStartsWithinTheNodeLimit: the pod's start limit defaults to less than the
// node's, so a pod that does not start reports its own state rather than the node's
// "context deadline exceeded"; a limit set at or above --timeout is a usage error.
func TestPodStartsWithinTheNodeLimit(t *testing.T) {
	var d time.Duration
	f := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.DurationVar(&d, "hostprocess-start-timeout", hostprocess.DefaultStartTimeout, "")
	if err := startTimeoutFor(f.Lookup("hostprocess-start-timeout"), 2*time.Minute, hostprocess.DefaultStartTimeout); err != nil || d != 90*time.Second {
		t.Fatalf("default under --timeout 2m: %s, %v", d, err)
	}
	d = 5 * time.Minute
	if err := startTimeoutFor(f.Lookup("hostprocess-start-timeout"), 2*time.Minute, hostprocess.DefaultStartTimeout); err == nil || !strings.Contains(err.Error(), "want less than --timeout") {
		t.Fatalf("5m under --timeout 2m: %v", err)
	}
	code, _, errOut := run(t, "--report", "--timeout", "1m", "--hostprocess-start-timeout", "1m", "--node", "w=192.0.2.1")
	if code != 2 || !strings.Contains(errOut, "--hostprocess-start-timeout") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
