package engine_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// fixBench is one scenario node behind a fake node, with a fix runner over it.
type fixBench struct {
	fake  *fakenode.Node
	eng   *engine.Engine
	fixer *engine.Fixer
	audit *engine.Audit
	node  string
}

func newFixBench(t *testing.T, scenario string, extra ...string) *fixBench {
	t.Helper()
	fsys, meta, _, err := scenarios.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	if len(extra) > 0 { // path, content pairs laid over the scenario
		m := fstest.MapFS{}
		if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(fsys, p)
			m[p] = &fstest.MapFile{Data: b}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = &fstest.MapFile{Data: []byte(extra[i+1])}
		}
		fsys = m
	}
	node := meta.Nodes[0]
	fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node})
	target := engine.Target{Name: node, Transport: serve(t, transport.WinRMHTTPS, fake, nil)}
	eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(t, fsys)}
	audit := &engine.Audit{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	fx := &engine.Fixer{Engine: eng, Targets: map[string]engine.Target{node: target}, Audit: audit, User: "tester"}
	return &fixBench{fake: fake, eng: eng, fixer: fx, audit: audit, node: node}
}

// finding sweeps the node and returns one probe's finding.
func (b *fixBench) finding(t *testing.T, probe string) probes.Finding {
	t.Helper()
	for _, f := range b.eng.ProbeNode(context.Background(), engine.Target{Name: b.node, Transport: b.fixer.Targets[b.node].Transport}, func(engine.Event) {}) {
		if f.Probe == probe {
			return f
		}
	}
	t.Fatalf("no %s finding", probe)
	return probes.Finding{}
}

func (b *fixBench) fixCalls() []string {
	var out []string
	for _, c := range b.fake.Commands() {
		for _, name := range c.Calls {
			if strings.HasPrefix(name, "fix-") {
				out = append(out, name)
			}
		}
	}
	return out
}

func pick(f probes.Finding, id string) *probes.Fix {
	for _, x := range engine.Runnable(f) {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// TestNodeFixesEndToEnd: each node-script fix runs through real WinRM, the fake node
// records exactly that script with its parameters as data, switches to the scenario's
// after-state, and the verifying probe passes.
func TestNodeFixesEndToEnd(t *testing.T) {
	cases := []struct {
		scenario, probe, fix string
		disruptive           bool
	}{
		{"kubelet-service-stopped", "SVC-KUBELET", "start-service", false},
		{"reboot-services-stopped", "SVC-REBOOT", "service-autostart", false},
		{"routes-missing", "NET-ROUTES", "add-routes", false},
		{"kube-proxy-network-service", "HNS-KPROXY-NET", "kube-proxy-network", false},
		{"leftover-containers", "RUNTIME-LEFTOVERS", "restart-runtime", true},
		{"pause-nanoserver-untagged", "IMG-PAUSE", "build-pause", false},
		{"pause-containerd-wrong-tag", "IMG-PAUSE", "tag-pause", false},
		{"pause-containerd-wrong-tag", "IMG-PAUSE", "multiarch-pause", true},
		{"proxy-user-level-only", "HOST-PROXY", "set-proxy", true},
		{"proxy-no-proxy-incomplete", "HOST-PROXY", "set-proxy", true},
		{"proxy-winhttp-only", "HOST-PROXY", "set-proxy", true},
	}
	for _, c := range cases {
		t.Run(c.scenario+"/"+c.fix, func(t *testing.T) {
			b := newFixBench(t, c.scenario)
			f := b.finding(t, c.probe)
			if f.Status < probes.Warn {
				t.Fatalf("%s passes before the fix: %s", c.probe, f.Summary)
			}
			fix := pick(f, c.fix)
			if fix == nil {
				t.Fatalf("%s offers no %s fix: %+v", c.probe, c.fix, f.Fix)
			}
			ans := engine.Typed("y")
			if c.disruptive {
				ans = engine.Typed(b.node)
			}
			out, err := b.fixer.Apply(context.Background(), f, fix, ans)
			if err != nil {
				t.Fatalf("apply: %v (output %q)", err, out.Output)
			}
			if out.Result != engine.Verified || fix.VerifyStatus.IsZero() && out.After.Status >= probes.Warn {
				t.Fatalf("not verified: %s %s", out.After.Status, out.After.Summary)
			}
			if calls := b.fixCalls(); len(calls) != 1 || calls[0] != string(fix.Action) {
				t.Fatalf("the node ran %v, want exactly %s", calls, fix.Action)
			}
			entries, err := b.audit.Entries()
			if err != nil || len(entries) != 1 || entries[0].Result != engine.Verified || entries[0].Node != b.node {
				t.Fatalf("audit %+v %v", entries, err)
			}
		})
	}
}

// TestFixRefusals: a declined confirmation runs nothing; a stale precondition refuses; a
// failing command reports its output and leaves the finding failing; disruptive fixes
// need an explicit allow; the cooldown stops loops. The audit log records each.
func TestFixRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("declined", func(t *testing.T) {
		b := newFixBench(t, "kubelet-service-stopped")
		f := b.finding(t, "SVC-KUBELET")
		b.fixer.Declined(f, f.Fix)
		if calls := b.fixCalls(); len(calls) != 0 {
			t.Fatalf("declined, yet the node ran %v", calls)
		}
		assertAudit(t, b.audit, "declined")
	})
	t.Run("stale precondition", func(t *testing.T) {
		b := newFixBench(t, "kubelet-service-stopped")
		f := b.finding(t, "SVC-KUBELET")
		// Someone else starts the kubelet between the preview and the confirmation.
		if _, err := b.fixer.Apply(ctx, f, f.Fix, engine.Typed("y")); err != nil {
			t.Fatal(err)
		}
		b.fixer.Cooldown = time.Nanosecond
		_, err := b.fixer.Apply(ctx, f, f.Fix, engine.Typed("y"))
		if !errors.Is(err, engine.ErrRefused) || !strings.Contains(err.Error(), "precondition") {
			t.Fatalf("want a precondition refusal, got %v", err)
		}
		if calls := b.fixCalls(); len(calls) != 1 {
			t.Fatalf("the stale fix ran: %v", calls)
		}
		assertAudit(t, b.audit, "verified", "refused")
	})
	t.Run("failing command", func(t *testing.T) {
		b := newFixBench(t, "routes-missing", "after/fix-add-routes/result.err",
			"exit 1\nNew-NetRoute : Access is denied.\r\n    + CategoryInfo          : PermissionDenied: (MSFT_NetRoute:ROOT/StandardCimv2/MSFT_NetRoute) [New-NetRoute], CimException\n")
		f := b.finding(t, "NET-ROUTES")
		out, err := b.fixer.Apply(ctx, f, f.Fix, engine.Typed("y"))
		if err == nil || out.Result != engine.Failed || !strings.Contains(out.Output, "Access is denied") {
			t.Fatalf("want a failure with the node's output, got %v %+v", err, out)
		}
		if again := b.finding(t, "NET-ROUTES"); again.Status < probes.Warn {
			t.Fatalf("a failed fix left the finding passing: %s", again.Summary)
		}
		assertAudit(t, b.audit, "failed")
		if e, _ := b.audit.Entries(); !strings.Contains(e[0].Output, "Access is denied") {
			t.Errorf("the audit lacks the output: %+v", e[0])
		}
	})
	t.Run("disruptive and cooldown", func(t *testing.T) {
		b := newFixBench(t, "leftover-containers")
		f := b.finding(t, "RUNTIME-LEFTOVERS")
		if out, err := b.fixer.Apply(ctx, f, f.Fix, engine.HeadlessAnswer(true, "")); !errors.Is(err, engine.ErrRefused) ||
			out.Result != engine.Refused || !strings.Contains(err.Error(), "--confirm "+b.node) {
			t.Fatalf("disruptive fix ran on --yes alone: %v", err)
		}
		if len(b.fixCalls()) != 0 {
			t.Fatal("the refused fix reached the node")
		}
		b2 := newFixBench(t, "kubelet-service-stopped")
		g := b2.finding(t, "SVC-KUBELET")
		b2.fixer.Now = func() time.Time { return time.Unix(1000, 0) }
		if _, err := b2.fixer.Apply(ctx, g, g.Fix, engine.Typed("y")); err != nil {
			t.Fatal(err)
		}
		if _, err := b2.fixer.Apply(ctx, g, g.Fix, engine.Typed("y")); !errors.Is(err, engine.ErrRefused) || !strings.Contains(err.Error(), "wait") {
			t.Fatalf("cooldown did not hold: %v", err)
		}
		assertAudit(t, b.audit, "refused")
	})
}

// TestConfirmationPolicy: the one rule both front ends use. An ordinary fix takes a yes,
// a disruptive one the node name, typed at a prompt or passed headless with --yes
// --confirm; a wrong answer at a prompt is declined, a headless run without what the rule
// needs is refused (never "declined": nobody was asked).
func TestConfirmationPolicy(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		scenario string
		probe    string
		ans      engine.Answer
		want     engine.Result
		runs     bool
	}{
		{"yes at the prompt", "kubelet-service-stopped", "SVC-KUBELET", engine.Typed(" Y\n"), engine.Verified, true},
		{"no at the prompt", "kubelet-service-stopped", "SVC-KUBELET", engine.Typed("n"), engine.Declined, false},
		{"no terminal, no --yes", "kubelet-service-stopped", "SVC-KUBELET", engine.HeadlessAnswer(false, ""), engine.Refused, false},
		{"--yes", "kubelet-service-stopped", "SVC-KUBELET", engine.HeadlessAnswer(true, ""), engine.Verified, true},
		{"disruptive: y is not the node name", "leftover-containers", "RUNTIME-LEFTOVERS", engine.Typed("y"), engine.Declined, false},
		{"disruptive: the node name typed", "leftover-containers", "RUNTIME-LEFTOVERS", engine.Typed("win-1"), engine.Verified, true},
		{"disruptive: --yes alone", "leftover-containers", "RUNTIME-LEFTOVERS", engine.HeadlessAnswer(true, ""), engine.Refused, false},
		{"disruptive: --confirm without --yes", "leftover-containers", "RUNTIME-LEFTOVERS", engine.HeadlessAnswer(false, "win-1"), engine.Refused, false},
		{"disruptive: --confirm another node", "leftover-containers", "RUNTIME-LEFTOVERS", engine.HeadlessAnswer(true, "win-other"), engine.Refused, false},
		{"disruptive: --yes --confirm the node", "leftover-containers", "RUNTIME-LEFTOVERS", engine.HeadlessAnswer(true, "win-1"), engine.Verified, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newFixBench(t, c.scenario)
			if c.ans.Typed == "win-1" { // "win-1" stands for the scenario's node
				c.ans.Typed = b.node
			}
			f := b.finding(t, c.probe)
			conf := engine.ConfirmationFor(f, f.Fix)
			if conf.Disruptive != f.Fix.Disruptive || (conf.Disruptive && !strings.Contains(conf.Question(), b.node)) {
				t.Errorf("confirmation %+v asks %q", conf, conf.Question())
			}
			out, err := b.fixer.Apply(ctx, f, f.Fix, c.ans)
			if out.Result != c.want || (err == nil) != (c.want == engine.Verified) {
				t.Fatalf("result %s (%v), want %s", out.Result, err, c.want)
			}
			if ran := len(b.fixCalls()) > 0; ran != c.runs {
				t.Fatalf("the fix reached the node: %v, want %v", ran, c.runs)
			}
			assertAudit(t, b.audit, c.want.String())
			if !strings.HasPrefix(out.Line(), c.want.String()+": ") {
				t.Errorf("line %q", out.Line())
			}
		})
	}
}

func assertAudit(t *testing.T, a *engine.Audit, results ...string) {
	t.Helper()
	entries, err := a.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(results) {
		t.Fatalf("audit has %d entries, want %v: %+v", len(entries), results, entries)
	}
	for i, r := range results {
		e := entries[i]
		if e.Result.String() != r || e.User != "tester" || e.Fix == "" || e.Time.IsZero() {
			t.Errorf("audit entry %d: %+v, want result %s", i, e, r)
		}
	}
}

// TestAPIFixesNameKnownActions: every Kubernetes API fix a scenario offers names one of
// the typed API actions the runner carries out (a misspelt string literal still compiles).
func TestAPIFixesNameKnownActions(t *testing.T) {
	known := map[probes.Action]bool{probes.PatchPodCIDR: true, probes.Cordon: true, probes.Drain: true,
		probes.DeleteNode: true, probes.Taint: true}
	seen := map[probes.Action]bool{}
	for _, name := range scenarios.Names() {
		fsys, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, meta.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			for _, fix := range engine.Runnable(f) {
				if fix.Kind != probes.KubeAPI {
					continue
				}
				seen[fix.Action] = true
				if !known[fix.Action] {
					t.Errorf("%s: %s on %s offers API action %q, which the fix runner does not know", name, f.Probe, f.Node, fix.Action)
				}
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no scenario offers a Kubernetes API fix")
	}
}
