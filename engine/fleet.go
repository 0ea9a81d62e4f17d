package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Member is one node as a front end shows it: the engine that judges it (whose tree
// holds the cluster evidence it is judged with), how to reach it, and its fix runner.
// In a live run every member shares one engine; in the demo each scenario has its own,
// and display names keep members with the same node name apart.
type Member struct {
	Display string
	Target  Target
	Engine  *Engine
	Fixer   *Fixer // nil: fixes are unavailable for this node
}

// Fleet is the nodes one front end drives (the screen, --report on the demo). Its
// methods speak display names: findings, events and evidence paths are relabelled.
type Fleet struct {
	members     map[string]*Member
	order       []string
	Concurrency int // members swept at once; <= 0 means DefaultConcurrency
}

// NewFleet makes an empty fleet.
func NewFleet(concurrency int) *Fleet {
	return &Fleet{members: map[string]*Member{}, Concurrency: concurrency}
}

// Add appends a member; a later member with the same display name replaces it.
func (f *Fleet) Add(m *Member) {
	if _, ok := f.members[m.Display]; !ok {
		f.order = append(f.order, m.Display)
	}
	f.members[m.Display] = m
}

// Names lists the members' display names in the order they were added.
func (f *Fleet) Names() []string { return append([]string(nil), f.order...) }

// Probe sweeps the named members (all when empty; unknown names are ignored) with the
// bounded concurrency of Each, emitting the engine's events under display names, one at
// a time, and a final Done with every finding. On cancel, members whose turn had not
// come get a NotSwept finding, as Engine.Probe does. It is the screen's Backend.
func (f *Fleet) Probe(ctx context.Context, nodes []string, emit func(Event)) {
	f.Judge(ctx, nodes, emit)
}

// Judge is Probe returning the findings, sorted, for headless front ends.
func (f *Fleet) Judge(ctx context.Context, nodes []string, emit func(Event)) []probes.Finding {
	if len(nodes) == 0 {
		nodes = f.order
	}
	var ms []*Member
	for _, n := range nodes {
		if m, ok := f.members[n]; ok {
			ms = append(ms, m)
		}
	}
	var mu sync.Mutex
	var all []probes.Finding
	send := func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		if emit != nil {
			emit(ev)
		}
		if ev.Kind == NodeJudged {
			all = append(all, ev.Findings...)
		}
	}
	linux := func(i int) bool { return ms[i].Engine.isLinux(ms[i].Target) }
	eachPeersFirst(ctx, f.Concurrency, len(ms), linux, func(ctx context.Context, i int) {
		m := ms[i]
		m.Engine.ProbeNode(ctx, m.Target, func(ev Event) {
			ev.Node = m.Display
			ev.Findings = m.relabel(ev.Findings)
			send(ev)
		})
	}, func(i int, err error) {
		fs := []probes.Finding{NotSwept(ms[i].Display, err)}
		send(Event{Kind: NodeJudged, Node: ms[i].Display, Findings: fs, Err: err})
	})
	Link(probes.CauseRules(), all)
	Sort(all) // every member has returned, no lock needed; after linking, so causes lead
	if emit != nil {
		emit(Event{Kind: Done, Findings: all})
	}
	return all
}

// Evidence reads one evidence file of a node as the fleet names it.
func (f *Fleet) Evidence(node, path string) ([]byte, error) {
	m, ok := f.members[node]
	if !ok {
		return nil, fmt.Errorf("no node %q", node)
	}
	return m.Engine.Tree.Evidence().Read(m.toActual(path))
}

// Preview is the fix preview. A front end sets fd.Fix to the fix the person chose
// when the finding offers several.
func (f *Fleet) Preview(ctx context.Context, fd probes.Finding) (string, error) {
	m, ok := f.members[fd.Node]
	if !ok || m.Fixer == nil || fd.Fix == nil {
		return "", fmt.Errorf("no fix for %s on %s", fd.Probe, fd.Node)
	}
	return m.Fixer.PreviewBody(ctx, m.Target.Name, fd.Fix), nil
}

// Apply runs the fix the person confirmed. The engine checks what they typed against
// the same Confirmation the front end asked for; the name on screen stands for the
// node's own name.
func (f *Fleet) Apply(ctx context.Context, fd probes.Finding, typed string, progress func(string)) (Outcome, error) {
	m, ok := f.members[fd.Node]
	if !ok || m.Fixer == nil || fd.Fix == nil {
		return Outcome{}, fmt.Errorf("fixes are not available for %s", fd.Node)
	}
	if strings.TrimSpace(typed) == m.Display {
		typed = m.Target.Name
	}
	fix := fd.Fix
	progress("running " + fix.ID + " on " + fd.Node)
	out, err := m.Fixer.Apply(ctx, m.unlabel(fd), fix, Typed(typed))
	if out.After.Probe != "" {
		out.After = m.relabel([]probes.Finding{out.After})[0]
	}
	for _, line := range strings.Split(strings.TrimSpace(out.Output), "\n") {
		if line != "" {
			progress(line) // the screen shows progress one line per message
		}
	}
	progress(out.Line())
	return out, err
}

// Declined audits a fix the person declined after its preview.
func (f *Fleet) Declined(fd probes.Finding) {
	if m, ok := f.members[fd.Node]; ok && m.Fixer != nil && fd.Fix != nil {
		m.Fixer.Declined(m.unlabel(fd), fd.Fix)
	}
}

func (m *Member) relabel(fs []probes.Finding) []probes.Finding {
	if m.Display == m.Target.Name {
		return fs
	}
	out := make([]probes.Finding, len(fs))
	for i, f := range fs {
		f.Node = m.Display
		f.Evidence = replacePrefix(f.Evidence, "nodes/"+m.Target.Name+"/", "nodes/"+m.Display+"/")
		out[i] = f
	}
	return out
}

func (m *Member) unlabel(f probes.Finding) probes.Finding {
	f.Node = m.Target.Name
	f.Evidence = replacePrefix(f.Evidence, "nodes/"+m.Display+"/", "nodes/"+m.Target.Name+"/")
	return f
}

func (m *Member) toActual(p string) string {
	if rest, ok := strings.CutPrefix(p, "nodes/"+m.Display+"/"); ok {
		return "nodes/" + m.Target.Name + "/" + rest
	}
	return p
}

func replacePrefix(paths []string, from, to string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if rest, ok := strings.CutPrefix(p, from); ok {
			p = to + rest
		}
		out[i] = p
	}
	return out
}
