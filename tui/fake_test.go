package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/cursor"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// fakeBackend is an in-memory Backend: each sweep emits NodeStarted, NodeCollected and
// NodeJudged per node with canned findings, then Done. With block set, Probe starts
// the nodes and then waits for ctx to be cancelled, recording that it saw it.
type fakeBackend struct {
	findings map[string][]probes.Finding
	errs     map[string]error
	evidence map[string][]byte
	block    bool

	mu        sync.Mutex
	calls     [][]string
	started   chan struct{} // receives once per blocking Probe, after NodeStarted
	cancelled chan error    // receives ctx.Err() a blocking Probe observed
}

func newFakeBackend(findings map[string][]probes.Finding) *fakeBackend {
	return &fakeBackend{
		findings:  findings,
		errs:      map[string]error{},
		evidence:  map[string][]byte{},
		started:   make(chan struct{}, 8),
		cancelled: make(chan error, 8),
	}
}

func (b *fakeBackend) Probe(ctx context.Context, nodes []string, emit func(engine.Event)) {
	b.mu.Lock()
	b.calls = append(b.calls, slices.Clone(nodes))
	b.mu.Unlock()
	if len(nodes) == 0 {
		for n := range b.findings {
			nodes = append(nodes, n)
		}
		sort.Strings(nodes)
	}
	if b.block {
		for _, n := range nodes {
			emit(engine.Event{Kind: engine.NodeStarted, Node: n})
		}
		b.started <- struct{}{}
		<-ctx.Done()
		b.cancelled <- ctx.Err()
		return
	}
	for _, n := range nodes {
		emit(engine.Event{Kind: engine.NodeStarted, Node: n})
		emit(engine.Event{Kind: engine.NodeCollected, Node: n, Err: b.errs[n], Elapsed: time.Second})
		emit(engine.Event{Kind: engine.NodeJudged, Node: n, Findings: slices.Clone(b.findings[n]), Elapsed: time.Second})
	}
	emit(engine.Event{Kind: engine.Done})
}

func (b *fakeBackend) Evidence(_, path string) ([]byte, error) {
	if d, ok := b.evidence[path]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("%s: no such evidence", path)
}

func (b *fakeBackend) probeCalls() [][]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

// fakeFixer previews the fix's commands and "applies" it by returning result (a pass by
// default). With block set, Apply waits for ctx and reports what it saw.
type fakeFixer struct {
	result    *probes.Finding // a verifying finding that does not verify (not-verified)
	outcome   *engine.Outcome // returned as is when set
	err       error
	block     bool
	applied   []probes.Finding
	typed     []string
	cancelled chan error
	mu        sync.Mutex
}

func (f *fakeFixer) Preview(_ context.Context, fd probes.Finding) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Target: node %s (%s)\n", fd.Node, fd.Fix.Kind)
	for _, c := range fd.Fix.Commands {
		fmt.Fprintf(&b, "  $ %s\n", c)
	}
	fmt.Fprintf(&b, "Disruptive: %v\n", fd.Fix.Disruptive)
	return b.String(), nil
}

func (f *fakeFixer) Apply(ctx context.Context, fd probes.Finding, typed string, progress func(string)) (engine.Outcome, error) {
	f.mu.Lock()
	f.applied = append(f.applied, fd)
	f.typed = append(f.typed, typed)
	f.mu.Unlock()
	progress("running " + fd.Fix.Title)
	if f.block {
		<-ctx.Done()
		f.cancelled <- ctx.Err()
		return engine.Outcome{}, ctx.Err()
	}
	progress("re-collecting " + fd.Node)
	switch {
	case f.err != nil:
		return engine.Outcome{Result: engine.Failed, Reason: f.err.Error()}, f.err
	case f.outcome != nil:
		return *f.outcome, nil
	case f.result != nil:
		return engine.Outcome{Result: engine.NotVerified, After: *f.result, Want: "pass", Reason: f.result.Summary}, nil
	}
	nf := fd
	nf.Status, nf.Summary, nf.Fix, nf.Details = probes.Pass, "fixed: all good now", nil, nil
	if fd.Fix.Verify != "" {
		nf.Probe = fd.Fix.Verify
	}
	return engine.Outcome{Result: engine.Verified, After: nf, Want: "pass", Reason: nf.Summary}, nil
}

// fakeSnapshotter reports three steps and returns a path (or waits for ctx).
type fakeSnapshotter struct {
	block     bool
	cancelled chan error
}

func (s *fakeSnapshotter) Snapshot(ctx context.Context, progress func(done, total int, item string)) (string, error) {
	progress(1, 3, "cluster/nodes.json")
	if s.block {
		<-ctx.Done()
		s.cancelled <- ctx.Err()
		return "", ctx.Err()
	}
	progress(2, 3, "nodes/win-a/hns-networks.json")
	progress(3, 3, "report.md")
	return "/tmp/wintroubleshoot-snapshot.tar.gz", nil
}

// cannedFindings: win-a has a failing HNS network (plain fix), a disruptive kube-proxy
// fix, a pause image with choices, passes; win-b is unreachable; win-c passes.
func cannedFindings() map[string][]probes.Finding {
	return map[string][]probes.Finding{
		"win-a": {
			{Probe: "HNS-NETWORK", Node: "win-a", Status: probes.Fail,
				Summary:  "HNS network \"flannel.4096\" is missing",
				Details:  []string{"expected: an overlay network named flannel.4096", "actual: networks nat, ext"},
				Evidence: []string{"nodes/win-a/hns-networks.json", "nodes/win-a/cni-config.json"},
				Fix: &probes.Fix{ID: "start-service", Title: "Start flanneld", Kind: probes.NodeScript,
					Action: "fix-start-service", Commands: []string{"Start-Service -Name 'flanneld'"}, Verify: "HNS-NETWORK",
					Notes: []string{"flanneld creates the network when it starts"}}},
			{Probe: "HNS-KPROXY-NET", Node: "win-a", Status: probes.Fail,
				Summary:  "kube-proxy points at network vxlan0, which does not exist",
				Details:  []string{"expected: --network-name=flannel.4096", "actual: --network-name=vxlan0"},
				Evidence: []string{"nodes/win-a/kube-proxy-args.json"},
				Fix: &probes.Fix{ID: "kube-proxy-network", Title: "Point kube-proxy at flannel.4096 and restart it",
					Kind: probes.NodeScript, Action: "fix-kube-proxy-network", Disruptive: true,
					Impact:   "service traffic on this node drops for a few seconds while kube-proxy restarts",
					Commands: []string{"Set-ItemProperty HKLM:\\...\\kube-proxy -Name Args -Value ...", "Restart-Service kube-proxy"},
					Verify:   "HNS-KPROXY-NET"}},
			{Probe: "IMG-PAUSE", Node: "win-a", Status: probes.Warn,
				Summary:  "pause image mcr.microsoft.com/oss/kubernetes/pause:3.9 is not on the node",
				Evidence: []string{"nodes/win-a/images.json"},
				Fix: &probes.Fix{ID: "pause-image", Title: "Provide the pause image (choose one)", Kind: probes.NodeScript,
					Verify: "IMG-PAUSE", Choices: []*probes.Fix{
						{ID: "tag-image", Title: "Tag the local pause image", Kind: probes.NodeScript, Commands: []string{"ctr -n k8s.io images tag a b"}},
						{ID: "pull-image", Title: "Pull the multi-arch image", Kind: probes.Manual, Commands: []string{"crictl pull mcr.microsoft.com/oss/kubernetes/pause:3.9"}},
					}}},
			{Probe: "NET-ROUTES", Node: "win-a", Status: probes.Pass, Summary: "routes to 3 pod subnets present"},
			{Probe: "SVC-KUBELET", Node: "win-a", Status: probes.Pass, Summary: "kubelet is running"},
		},
		"win-b": {
			{Probe: probes.ReachID, Node: "win-b", Status: probes.Error,
				Summary:  "node not reachable: dial tcp 10.0.0.5:5986: connection refused",
				Evidence: []string{"nodes/win-b/sweep.err"}},
		},
		"win-c": {
			{Probe: "HNS-NETWORK", Node: "win-c", Status: probes.Pass, Summary: "HNS network \"flannel.4096\" is present"},
			{Probe: "NODE-PODCIDR", Node: "win-c", Status: probes.Skip, Summary: "no podCIDR expected (Calico)"},
			{Probe: "SVC-KUBELET", Node: "win-c", Status: probes.Pass, Summary: "kubelet is running"},
		},
	}
}

// testModel builds a deterministic model: no colour, no spinner ticks, fixed size.
func testModel(t testing.TB, opts Options, w, h int) Model {
	t.Helper()
	if opts.Cluster == "" {
		opts.Cluster, opts.Context = "aks-prod", "prod-admin"
	}
	opts.NoColor = true
	m := New(opts)
	m.animate = false
	mm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return mm.(Model)
}

// standard is a model over the canned findings with every optional piece present.
func standard(t testing.TB) (Model, *fakeBackend, *fakeFixer, *fakeSnapshotter) {
	be := newFakeBackend(cannedFindings())
	be.errs["win-b"] = errors.New("dial tcp 10.0.0.5:5986: connection refused")
	be.evidence["nodes/win-a/hns-networks.json"] = []byte(`[{"Name":"nat","Type":"NAT"},{"Name":"ext","Type":"L2Bridge"}]` + "\n")
	fx := &fakeFixer{cancelled: make(chan error, 1)}
	sn := &fakeSnapshotter{cancelled: make(chan error, 1)}
	m := testModel(t, Options{Nodes: []string{"win-a", "win-b", "win-c"}, Backend: be, Fixer: fx, Snapshot: sn}, 80, 24)
	return m, be, fx, sn
}

// drive runs cmd and everything it leads to, feeding each message back into Update,
// until no command is left. It returns the final model and the messages that Update
// did not produce a model for (tea.QuitMsg and the like are recorded in quit).
type driven struct {
	Model
	quit bool
	msgs []tea.Msg
}

func drive(t testing.TB, m Model, cmd tea.Cmd) driven {
	t.Helper()
	d := driven{Model: m}
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("drive: too many steps")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := runCmd(t, c)
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case tea.QuitMsg:
			d.quit = true
			continue
		case spinner.TickMsg, cursor.BlinkMsg:
			continue
		}
		d.msgs = append(d.msgs, msg)
		mm, next := d.Model.Update(msg)
		d.Model = mm.(Model)
		queue = append(queue, next)
	}
	return d
}

// runCmd runs one command with a deadline, so a test that blocks fails instead of hanging.
func runCmd(t testing.TB, c tea.Cmd) tea.Msg {
	t.Helper()
	ch := make(chan tea.Msg, 1)
	go func() { ch <- c() }()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(5 * time.Second):
		t.Fatal("command did not return within 5s")
		return nil
	}
}

// press sends one key and drives what it leads to.
func press(t testing.TB, m Model, keys ...tea.KeyPressMsg) driven {
	t.Helper()
	d := driven{Model: m}
	for _, k := range keys {
		mm, cmd := d.Model.Update(k)
		nd := drive(t, mm.(Model), cmd)
		d.Model, d.quit, d.msgs = nd.Model, d.quit || nd.quit, append(d.msgs, nd.msgs...)
	}
	return d
}

// started is a model whose first sweep has run to the end.
func started(t testing.TB, m Model) Model {
	t.Helper()
	return drive(t, m, m.Init()).Model
}

// Keys, built the way the terminal reports them.
func runeKey(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

var (
	kEsc      = tea.KeyPressMsg{Code: tea.KeyEscape}
	kEnter    = tea.KeyPressMsg{Code: tea.KeyEnter}
	kTab      = tea.KeyPressMsg{Code: tea.KeyTab}
	kShiftTab = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	kDown     = tea.KeyPressMsg{Code: tea.KeyDown}
	kUp       = tea.KeyPressMsg{Code: tea.KeyUp}
	kCtrlC    = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	kShiftG   = tea.KeyPressMsg{Code: 'g', ShiftedCode: 'G', Mod: tea.ModShift, Text: "G"}
	kShiftR   = tea.KeyPressMsg{Code: 'r', ShiftedCode: 'R', Mod: tea.ModShift, Text: "R"}
)

func typeText(s string) []tea.KeyPressMsg {
	var ks []tea.KeyPressMsg
	for _, r := range s {
		ks = append(ks, runeKey(r))
	}
	return ks
}

// screen is the view as plain text.
func screen(m Model) string { return ansi.Strip(m.View().Content) }

func mustContain(t testing.TB, m Model, want ...string) {
	t.Helper()
	s := screen(m)
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Fatalf("screen lacks %q:\n%s", w, s)
		}
	}
}

func mustNotContain(t testing.TB, m Model, bad ...string) {
	t.Helper()
	s := screen(m)
	for _, w := range bad {
		if strings.Contains(s, w) {
			t.Fatalf("screen shows %q:\n%s", w, s)
		}
	}
}
