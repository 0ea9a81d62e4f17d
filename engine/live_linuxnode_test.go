package engine_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// serveLinux starts a fake Linux worker for one scenario node over SSH, as root with an
// ed25519 key, and returns the config that reaches it, host key verified.
func serveLinux(t *testing.T, fake *fakenode.LinuxNode) transport.Config {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakenode.StartLinuxSSH(context.Background(), fake, fakenode.SSHOptions{User: "root", AuthorizedKeys: []ssh.PublicKey{sshPub}, HostKeySeed: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	key, kh := filepath.Join(dir, "id_ed25519"), filepath.Join(dir, "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.HostKey())
	if err := os.WriteFile(key, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kh, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return transport.Config{Kind: transport.SSH, Host: "127.0.0.1", Port: portOf(srv.Addr()), User: "root", KeyFile: key, KnownHosts: kh, Timeout: 20 * time.Second}
}

// mixedScenarios are the scenarios with Linux workers, each with its node names split.
func mixedScenarios(t *testing.T) map[string][2][]string {
	out := map[string][2][]string{}
	for _, name := range scenarios.Names() {
		fsys, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		var win, lin []string
		for _, n := range meta.Nodes {
			if evidence.NodeOS(evidence.Evidence{FS: fsys}, n) == evidence.Linux {
				lin = append(lin, n)
			} else {
				win = append(win, n)
			}
		}
		if len(lin) > 0 {
			out[name] = [2][]string{win, lin}
		}
	}
	if len(out) == 0 {
		t.Fatal("no scenario has Linux workers")
	}
	return out
}

// mixedTargets serves every node of a scenario: Windows nodes as fake Windows nodes over
// SSH (PowerShell), Linux workers as fake Linux nodes over SSH (sh).
func mixedTargets(t *testing.T, fsys fs.FS, win, lin []string) ([]engine.Target, map[string]*fakenode.LinuxNode) {
	var targets []engine.Target
	for _, node := range win {
		fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node})
		targets = append(targets, engine.Target{Name: node, Transport: serve(t, transport.SSH, fake, nil)})
	}
	fakes := map[string]*fakenode.LinuxNode{}
	for _, node := range lin {
		fakes[node] = fakenode.NewLinuxNode(fakenode.NodeOptions{Scenario: fsys, Node: node})
		targets = append(targets, engine.Target{Name: node, Transport: serveLinux(t, fakes[node]), OS: evidence.Linux})
	}
	return targets, fakes
}

// TestLiveEqualsAnalyzeMixed: in every scenario with Linux workers, a live run over SSH,
// the Linux workers answering the shell sweep and the Windows nodes PowerShell, gives
// exactly the findings `analyze` gives over the same scenario; each Linux worker was sent
// sh only.
func TestLiveEqualsAnalyzeMixed(t *testing.T) {
	for name, split := range mixedScenarios(t) {
		t.Run(name, func(t *testing.T) {
			fsys, meta, _, err := scenarios.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, meta.Nodes)
			if err != nil {
				t.Fatal(err)
			}
			targets, fakes := mixedTargets(t, fsys, split[0], split[1])
			eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(t, fsys), Timeout: time.Minute}
			got := eng.Probe(context.Background(), targets, nil)
			if !reflect.DeepEqual(brief(got), brief(want)) {
				t.Fatalf("live over SSH differs from analyze:\nlive:\n  %s\nanalyze:\n  %s",
					strings.Join(brief(got), "\n  "), strings.Join(brief(want), "\n  "))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("findings agree in summary but differ in details or fixes:\nlive:    %+v\nanalyze: %+v", got[i], want[i])
				}
			}
			for node, fake := range fakes {
				cmds := fake.Commands()
				if len(cmds) != 1 || cmds[0].CommandLine != "sh -s" || len(cmds[0].Calls) == 0 {
					t.Errorf("%s received %d commands, want one shell sweep: %+v", node, len(cmds), cmds)
				}
			}
		})
	}
}

// TestLinuxRouteFixEndToEnd: the route a Linux worker lacks to a Windows node's pods is
// found, offered as `ip route add`, run on the worker as sh over SSH (never PowerShell),
// and verified from the worker's routes re-collected; the audit log records it.
func TestLinuxRouteFixEndToEnd(t *testing.T) {
	const name, node = "mixed-hardway-route-missing", "node-1"
	fsys, meta, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	split := mixedScenarios(t)[name]
	targets, fakes := mixedTargets(t, fsys, split[0], split[1])
	eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(t, fsys), Timeout: time.Minute}
	byName := map[string]engine.Target{}
	for _, tg := range targets {
		byName[tg.Name] = tg
	}
	audit := &engine.Audit{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	fx := &engine.Fixer{Engine: eng, Targets: byName, Audit: audit, User: "tester"}
	var f probes.Finding
	for _, x := range eng.Probe(context.Background(), targets, nil) {
		if x.Node == node && x.Probe == "LINUX-ROUTES" {
			f = x
		}
	}
	if f.Status != probes.Fail || f.Fix == nil || f.Fix.Action != probes.FixLinuxAddRoutes {
		t.Fatalf("%s LINUX-ROUTES: %+v, want a failure offering %s (nodes %v)", node, f, probes.FixLinuxAddRoutes, meta.Nodes)
	}
	if got := strings.Join(f.Fix.Commands, "; "); !strings.HasPrefix(got, "ip route add ") {
		t.Errorf("preview commands %q", got)
	}
	out, err := fx.Apply(context.Background(), f, f.Fix, engine.Typed("y"))
	if err != nil {
		t.Fatalf("apply: %v (output %q)", err, out.Output)
	}
	if out.Result != engine.Verified || out.After.Status >= probes.Warn {
		t.Fatalf("not verified: %s %s", out.After.Status, out.After.Summary)
	}
	cmds := fakes[node].Commands()
	last := cmds[len(cmds)-2] // the fix, then the re-collect
	if last.CommandLine != "sh -s" || len(last.Calls) != 1 || last.Calls[0] != string(probes.FixLinuxAddRoutes) || !strings.Contains(last.Script, "ip route add") {
		t.Errorf("the node received %+v", last)
	}
	if a := fakes[node].Applied(); len(a) != 1 || a[0] != string(probes.FixLinuxAddRoutes) {
		t.Errorf("applied %v", a)
	}
	entries, err := audit.Entries()
	if err != nil || len(entries) != 1 || entries[0].Result != engine.Verified || entries[0].Node != node {
		t.Fatalf("audit %+v %v", entries, err)
	}
}
