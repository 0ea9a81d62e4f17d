package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// DefaultInterval is how often an agent sweeps its node; DefaultJitter spreads the
// sweeps of a fleet (and a DaemonSet rollout's first sweeps) over ±10% of it.
const (
	DefaultInterval = 5 * time.Minute
	DefaultJitter   = 0.1
)

// Source gives the agent its node's evidence for one sweep. Evidence of a sweep that
// failed still says so (nodes/<node>/sweep.err), with err set.
type Source interface {
	Sweep(ctx context.Context) (evidence.Evidence, error)
}

// EngineSource sweeps through the engine's transports: on the node, the local transport
// (the same snippets a live run sends over WinRM); in tests, a fake node over WinRM.
type EngineSource struct {
	Engine *engine.Engine
	Target engine.Target
	// Probes, when set, limits the sweep to what they read (a plugin run for one
	// condition kind); nil sweeps for every probe.
	Probes []probes.Probe
	// Cluster, when set, puts the cluster evidence the node probes need into the tree
	// before each sweep (NodeAndPods); a failure leaves the probes without it, and judge
	// then leaves out the probes that read it.
	Cluster func(context.Context, *evidence.Tree) error
}

// Sweep collects every node file the probes of the target's kind read.
func (s EngineSource) Sweep(ctx context.Context) (evidence.Evidence, error) {
	reg := s.Engine.Registry
	os := s.Target.OS
	if os == "" {
		os = evidence.Windows
	}
	ps := s.Probes
	if ps == nil {
		ps = reg.Probes()
	}
	if s.Cluster != nil {
		if err := s.Cluster(ctx, s.Engine.Tree); err != nil {
			s.Engine.Tree.Replace("cluster", []string{evidence.PathNodes, evidence.PathPods}, nil) // nothing stale
		}
	}
	err := s.Engine.Collect(ctx, s.Target, reg.NodeNeedsOf(os, ps))
	return s.Engine.Tree.Evidence(), err
}

// FolderSource reads an evidence folder (a scenario, an unpacked bundle) anew on each
// sweep: the agent without a node, for demos and tests that change the folder.
type FolderSource struct {
	Dir string
	// Wrap, when set, wraps the folder (the redactor's FS, so what is read is redacted).
	Wrap func(fs.FS) fs.FS
}

// Sweep reads the folder as it is now.
func (s FolderSource) Sweep(context.Context) (evidence.Evidence, error) {
	if _, err := os.Stat(s.Dir); err != nil {
		return evidence.Evidence{}, fmt.Errorf("reading the evidence folder: %w", err)
	}
	fsys := os.DirFS(s.Dir)
	if s.Wrap != nil {
		fsys = s.Wrap(fsys)
	}
	return evidence.Evidence{FS: fsys}, nil
}

// Agent watches one node.
type Agent struct {
	Node     string
	Source   Source
	Registry *probes.Registry
	// Publisher writes the results to the API server; nil writes nothing (plugin mode).
	Publisher *Publisher
	// Metrics, when set, records every sweep.
	Metrics  *Metrics
	Interval time.Duration // <= 0 means DefaultInterval
	Jitter   float64       // fraction of Interval the wait varies by (0: none)
	Version  string
	// Log, when set, gets one line per sweep and per publishing error.
	Log func(string)
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	prev map[string]probes.Status // the last sweep's statuses; nil before the first
}

func (a *Agent) now() time.Time {
	if a.Now == nil {
		return time.Now()
	}
	return a.Now()
}

func (a *Agent) interval() time.Duration {
	if a.Interval <= 0 {
		return DefaultInterval
	}
	return a.Interval
}

func (a *Agent) log(format string, args ...any) {
	if a.Log != nil {
		a.Log(fmt.Sprintf(format, args...))
	}
}

// SweepOnce sweeps and judges the node. It never runs a fix.
func (a *Agent) SweepOnce(ctx context.Context) Report {
	start := a.now()
	ev, err := a.Source.Sweep(ctx)
	r := Report{Version: ReportVersion, Node: a.Node, Agent: a.Version, SweptAt: start, Interval: a.interval()}
	if ev.FS == nil { // nothing at all to read: the source itself failed
		if err == nil {
			err = errors.New("the evidence source gave nothing")
		}
		r.SweepError = err.Error()
		r.Findings = []probes.Finding{{Probe: probes.ReachID, Node: a.Node, Status: probes.Error, Summary: "sweep failed: " + err.Error()}}
	} else {
		if err != nil {
			r.SweepError = err.Error()
		}
		r.OS = evidence.NodeOS(ev, a.Node)
		r.Evidence = summarize(ev, a.Node)
		r.Findings = judge(a.Registry, ev, a.Node)
	}
	r.RootCauses = report.RootCauses(r.Findings)
	r.Findings = compact(r.Findings)
	r.Duration = a.now().Sub(start)
	return r
}

// judge runs the probes that read the node's own evidence and find every cluster file
// they read at hand. Probes that judge the cluster alone (NODE-READY, NODE-TAINT, ...)
// are left to whoever reads the fleet: every agent judging them would repeat one
// judgement per node. A node probe that also reads a cluster list the agent does not
// hold (it has only the pods on its node) is left out too: judged without it, some
// warn on healthy nodes (SVC-REBOOT tells an rke2 node by its Node object, DNS-CONFIG
// needs the Services), and a false alarm on every node of a fleet is worse than a check
// the CLI still makes.
func judge(reg *probes.Registry, ev evidence.Evidence, node string) []probes.Finding {
	own := map[string]bool{probes.ReachID: true}
	for _, p := range reg.Probes() {
		reads := p.Spec().Reads
		onNode := slices.ContainsFunc(reads, func(k evidence.Ref) bool { return k.Meta().Scope == evidence.Node })
		missing := slices.ContainsFunc(reads, func(k evidence.Ref) bool {
			return k.Meta().Scope == evidence.Cluster && !ev.Has(k.Path(node))
		})
		if onNode && !missing {
			own[p.ID()] = true
		}
	}
	var out []probes.Finding
	for _, f := range reg.Run(node, ev) {
		if own[f.Probe] {
			out = append(out, f)
		}
	}
	engine.Sort(out)
	engine.Link(probes.CauseRules(), out)
	return out
}

// summarize counts the node's evidence files and names the snippets that failed.
func summarize(ev evidence.Evidence, node string) EvidenceSummary {
	var s EvidenceSummary
	dir := "nodes/" + node
	entries, _ := fs.ReadDir(ev.FS, dir)
	for _, e := range entries {
		name := e.Name()
		snippet, failed := strings.CutSuffix(name, evidence.ErrSuffix)
		switch {
		case e.IsDir():
		case failed:
			s.Errors = append(s.Errors, snippet)
			if b, err := fs.ReadFile(ev.FS, path.Join(dir, name)); err == nil && strings.Contains(string(b), "timed out") {
				s.Timeouts = append(s.Timeouts, snippet)
			}
		case !strings.HasSuffix(name, ".note"):
			s.Files++
		}
	}
	return s
}

// Step sweeps once, publishes and records the sweep; it returns the report and the
// publishing error, if any.
func (a *Agent) Step(ctx context.Context) (Report, error) {
	r := a.SweepOnce(ctx)
	moves := Transitions(a.prev, r.Findings)
	if r.SweepError == "" || a.prev == nil {
		a.prev = statuses(r.Findings)
	}
	if a.Metrics != nil {
		a.Metrics.Observe(r)
	}
	var err error
	if a.Publisher != nil {
		err = a.Publisher.Publish(ctx, r, moves)
	}
	a.log("swept %s in %s: %s", a.Node, r.Duration.Round(time.Millisecond), tally(r.Findings))
	return r, err
}

// Run sweeps until ctx ends: a first sweep after a random part of the jitter (so a
// rollout does not sweep every node at once), then every interval, give or take the
// jitter. Publishing errors are logged and retried at the next sweep.
func (a *Agent) Run(ctx context.Context) error {
	if a.Publisher != nil && a.prev == nil {
		last, err := a.Publisher.Previous(ctx)
		if err != nil {
			a.log("%v (events of failures already recorded may repeat)", err)
		} else if last != nil {
			a.prev = statuses(last.Findings)
		}
	}
	wait := time.Duration(rand.Float64() * a.jitter() * float64(a.interval()))
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		if _, err := a.Step(ctx); err != nil && ctx.Err() == nil {
			a.log("publishing: %v", err)
		}
		wait = time.Duration(float64(a.interval()) * (1 + a.jitter()*(2*rand.Float64()-1)))
	}
}

func (a *Agent) jitter() float64 {
	if a.Jitter < 0 {
		return 0
	}
	return a.Jitter
}

// tally is "3 pass, 1 fail" for a log line.
func tally(fs []probes.Finding) string {
	n := map[probes.Status]int{}
	for _, f := range fs {
		n[f.Status]++
	}
	var parts []string
	for _, s := range []probes.Status{probes.Error, probes.Fail, probes.Warn, probes.Pass, probes.Skip} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	return strings.Join(parts, ", ")
}
