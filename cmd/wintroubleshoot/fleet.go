package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/probes/engine"
)

// member is one node on screen: its engine (whose tree holds the cluster evidence it is
// judged with), how to reach it, and its fix runner. In a live run every member shares
// one engine; in the demo each scenario has its own, and display names keep them apart.
type member struct {
	display string
	target  engine.Target
	eng     *engine.Engine
	fixer   *engine.Fixer
}

// fleet is the screen's backend over members.
type fleet struct {
	members     map[string]*member
	order       []string
	concurrency int
}

func newFleet(concurrency int) *fleet {
	return &fleet{members: map[string]*member{}, concurrency: concurrency}
}

func (f *fleet) add(m *member) {
	f.members[m.display] = m
	f.order = append(f.order, m.display)
}

// Probe sweeps the named members (all when empty) with bounded concurrency, emitting
// the engine's events under display names.
func (f *fleet) Probe(ctx context.Context, nodes []string, emit func(engine.Event)) {
	if len(nodes) == 0 {
		nodes = f.order
	}
	limit := f.concurrency
	if limit <= 0 {
		limit = 8
	}
	sem := make(chan struct{}, limit)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var all []probes.Finding
	for _, name := range nodes {
		m, ok := f.members[name]
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				return
			}
			fs := m.eng.ProbeNode(ctx, m.target, func(ev engine.Event) {
				ev.Node = m.display
				ev.Findings = m.relabel(ev.Findings)
				mu.Lock()
				defer mu.Unlock()
				emit(ev)
			})
			mu.Lock()
			all = append(all, m.relabel(fs)...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	engine.Sort(all)
	emit(engine.Event{Kind: engine.Done, Findings: all})
}

// Evidence reads one evidence file of a node as the screen names it.
func (f *fleet) Evidence(node, path string) ([]byte, error) {
	m, ok := f.members[node]
	if !ok {
		return nil, fmt.Errorf("no node %q", node)
	}
	return m.eng.Tree.Evidence().Read(m.toActual(path))
}

// Preview is the fix preview in the screen's names. The screen sets f.Fix to the fix
// the person chose when the finding offers several.
func (f *fleet) Preview(ctx context.Context, fd probes.Finding) (string, error) {
	m, ok := f.members[fd.Node]
	if !ok || m.fixer == nil || fd.Fix == nil {
		return "", fmt.Errorf("no fix for %s on %s", fd.Probe, fd.Node)
	}
	return m.fixer.PreviewBody(ctx, m.target.Name, fd.Fix), nil
}

// Apply runs the fix the person confirmed on screen. The engine checks what they typed
// against the same Confirmation the screen asked for; the name on screen stands for the
// node's own name.
func (f *fleet) Apply(ctx context.Context, fd probes.Finding, typed string, progress func(string)) (engine.Outcome, error) {
	m, ok := f.members[fd.Node]
	if !ok || m.fixer == nil || fd.Fix == nil {
		return engine.Outcome{}, fmt.Errorf("fixes are not available for %s", fd.Node)
	}
	if strings.TrimSpace(typed) == m.display {
		typed = m.target.Name
	}
	fix := fd.Fix
	progress("running " + fix.ID + " on " + fd.Node)
	out, err := m.fixer.Apply(ctx, m.unlabel(fd), fix, engine.Typed(typed))
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
func (f *fleet) Declined(fd probes.Finding) {
	if m, ok := f.members[fd.Node]; ok && m.fixer != nil && fd.Fix != nil {
		m.fixer.Declined(m.unlabel(fd), fd.Fix)
	}
}

func (m *member) relabel(fs []probes.Finding) []probes.Finding {
	if m.display == m.target.Name {
		return fs
	}
	out := make([]probes.Finding, len(fs))
	for i, f := range fs {
		f.Node = m.display
		f.Evidence = replacePrefix(f.Evidence, "nodes/"+m.target.Name+"/", "nodes/"+m.display+"/")
		out[i] = f
	}
	return out
}

func (m *member) unlabel(f probes.Finding) probes.Finding {
	f.Node = m.target.Name
	f.Evidence = replacePrefix(f.Evidence, "nodes/"+m.display+"/", "nodes/"+m.target.Name+"/")
	return f
}

func (m *member) toActual(p string) string {
	if rest, ok := strings.CutPrefix(p, "nodes/"+m.display+"/"); ok {
		return "nodes/" + m.target.Name + "/" + rest
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
