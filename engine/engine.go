// Package engine is what every front end runs on: a live run (collect each node with
// one sweep, nodes concurrently with a bound, judge, link root causes), the analysis of
// evidence collected elsewhere (folders, bundles, pastes: Analyze, AnalyzeImported),
// fixes with their preview, confirmation, audit record and verification, and snapshots.
// It streams events, so front ends never block on I/O, and hands out findings in the one
// order every output shows (Sort).
package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/report"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Target is one node and how to reach it.
type Target struct {
	Name      string
	Transport transport.Config
	// OS is the node's kind (its kubernetes.io/os label); Windows when unknown, unless
	// the evidence already collected for it (os.json) says Linux.
	OS evidence.OS
}

// DialFunc opens a transport to a node.
type DialFunc func(ctx context.Context, cfg transport.Config) (transport.Transport, error)

// EventKind says what happened.
type EventKind int

const (
	NodeStarted   EventKind = iota // a node's sweep began
	NodeCollected                  // its evidence arrived (Err set when unreachable)
	NodeJudged                     // its findings are ready
	Done                           // every node is judged
)

// Event is one step of a run, sent as it happens.
type Event struct {
	Kind     EventKind
	Node     string
	Findings []probes.Finding
	Err      error
	Elapsed  time.Duration
	// Via is the transport that answered (NodeCollected; "" when none did).
	Via transport.Kind
}

// Reach is how a node was reached: the transport that answered and, when it was chosen
// among several (--transport auto), why the ones tried before it did not.
type Reach struct {
	Kind transport.Kind
	Why  string
}

// Engine collects and judges. Tree holds all evidence gathered so far (cluster evidence
// is put there by the caller before Probe), so a snapshot or a re-judge sees it.
type Engine struct {
	Registry    *probes.Registry
	Dial        DialFunc
	Concurrency int           // nodes swept at once; <= 0 means 8
	Timeout     time.Duration // per node sweep; 0 means none beyond ctx
	Tree        *evidence.Tree
	// Params optionally passes parameters to snippets, by snippet name.
	Params map[string]map[string]any

	// Reached, when set, records how each node was reached (copies of the engine share it).
	Reached *ReachLog
	// Logs, when set, fills in log files a successful sweep could not give from another
	// source (node log query through the API server), recording where each came from.
	Logs func(ctx context.Context, tree *evidence.Tree, node string, names []string)
	// Scripts, when set, keeps the sweep scripts built so far (copies of the engine share
	// it): every node of a kind gets the same script, built once. Nil builds it per node.
	Scripts *sweep.Plans
}

// ReachLog is how each node swept so far was reached, by node name; safe for concurrent use.
type ReachLog struct {
	mu sync.Mutex
	m  map[string]Reach
}

// NewReachLog is an empty log.
func NewReachLog() *ReachLog { return &ReachLog{m: map[string]Reach{}} }

// All is a copy of the log (nil-safe).
func (l *ReachLog) All() map[string]Reach {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]Reach, len(l.m))
	for k, v := range l.m {
		out[k] = v
	}
	return out
}

func (e *Engine) reach(node string) Reach {
	if e.Reached == nil {
		return Reach{}
	}
	e.Reached.mu.Lock()
	defer e.Reached.mu.Unlock()
	return e.Reached.m[node]
}

func (e *Engine) noteReach(node string, r Reach) {
	if e.Reached == nil {
		return
	}
	e.Reached.mu.Lock()
	defer e.Reached.mu.Unlock()
	e.Reached.m[node] = r
}

// Probe sweeps every target and judges it, emitting events (emit may be nil; it is called
// from several goroutines, one at a time). It returns all findings, sorted.
//
// When ctx is cancelled, nodes being swept end with what their transport says; nodes
// whose turn had not come are not swept and get one NotSwept finding each (and a
// NodeJudged event carrying it), so a cancelled run never silently leaves nodes out.
func (e *Engine) Probe(ctx context.Context, targets []Target, emit func(Event)) []probes.Finding {
	if e.Scripts == nil { // one run builds each kind's script once
		run := *e
		run.Scripts = new(sweep.Plans)
		e = &run
	}
	var mu sync.Mutex
	send := func(ev Event) {
		if emit != nil {
			mu.Lock()
			defer mu.Unlock()
			emit(ev)
		}
	}
	var all []probes.Finding
	var allMu sync.Mutex
	keep := func(fs []probes.Finding) {
		allMu.Lock()
		defer allMu.Unlock()
		all = append(all, fs...)
	}
	linux := func(i int) bool { return e.isLinux(targets[i]) }
	eachPeersFirst(ctx, e.Concurrency, len(targets), linux, func(ctx context.Context, i int) {
		keep(e.ProbeNode(ctx, targets[i], send))
	}, func(i int, err error) {
		fs := []probes.Finding{NotSwept(targets[i].Name, err)}
		send(Event{Kind: NodeJudged, Node: targets[i].Name, Findings: fs, Err: err})
		keep(fs)
	})
	Link(probes.CauseRules(), all)
	Sort(all) // after linking: causes lead their consequences
	send(Event{Kind: Done, Findings: all})
	return all
}

// NotSwept is the finding of a node a cancelled run never reached: an error (nothing
// was judged), under the reachability probe's ID so it sorts first, as unreachable
// nodes do.
func NotSwept(node string, err error) probes.Finding {
	return probes.Finding{Probe: probes.ReachID, Node: node, Status: probes.Error,
		Summary: "not swept: the run was cancelled before this node's turn",
		Details: []string{fmt.Sprintf("cancelled: %v", err)}}
}

// ProbeNode sweeps and judges one node.
func (e *Engine) ProbeNode(ctx context.Context, t Target, send func(Event)) []probes.Finding {
	start := time.Now()
	send(Event{Kind: NodeStarted, Node: t.Name})
	err := e.Collect(ctx, t, e.nodeNeeds())
	var via transport.Kind
	if err == nil {
		via = e.reach(t.Name).Kind
	}
	send(Event{Kind: NodeCollected, Node: t.Name, Err: err, Elapsed: time.Since(start), Via: via})
	fs := e.Registry.Run(t.Name, e.Tree.Evidence())
	Link(probes.CauseRules(), fs) // this node's links now; Probe links the whole run at the end
	Sort(fs)                      // after linking: causes lead their consequences
	send(Event{Kind: NodeJudged, Node: t.Name, Findings: fs, Elapsed: time.Since(start)})
	return fs
}

// Collect runs one sweep of the named snippets on a node and stores the files in the
// tree, replacing what was there; an unreachable node gets nodes/<node>/sweep.err.
func (e *Engine) Collect(ctx context.Context, t Target, names []string) error {
	if e.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.Timeout)
		defer cancel()
	}
	prefix := "nodes/" + t.Name
	files, err := e.sweep(ctx, t, names)
	// Drop the earlier copies, so a file that is no longer collected cannot linger.
	stale := []string{prefix + "/" + evidence.SweepErr}
	for _, n := range names {
		stale = append(stale, prefix+"/"+n, prefix+"/"+n+evidence.ErrSuffix, prefix+"/"+n+sweep.NoteSuffix)
	}
	// One step each way: a node judged meanwhile (a re-probe while the fleet sweeps) never
	// sees its files half replaced.
	if err != nil {
		e.Tree.Replace(prefix, stale, map[string][]byte{evidence.SweepErr: []byte(sweepErrText(t, err))})
		return err
	}
	e.Tree.Replace(prefix, stale, files)
	if e.Logs != nil {
		e.Logs(ctx, e.Tree, t.Name, names)
	}
	return nil
}

func (e *Engine) sweep(ctx context.Context, t Target, names []string) (map[string][]byte, error) {
	tr, err := e.Dial(ctx, t.Transport)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	req := sweep.Request{Names: names, Params: e.Params, OS: e.osOf(t), User: t.Transport.User}
	plan, err := e.plan(req)
	if err != nil {
		return nil, err
	}
	files, err := plan.Run(ctx, tr)
	if err == nil {
		kind, why := transport.ViaOf(tr, t.Transport)
		e.noteReach(t.Name, Reach{Kind: kind, Why: why})
	}
	return files, err
}

func (e *Engine) plan(req sweep.Request) (*sweep.Plan, error) {
	if e.Scripts == nil {
		return sweep.NewPlan(req)
	}
	return e.Scripts.For(req)
}

// osOf is the target's kind: as resolved, else what the evidence already collected for
// it says (evidence.NodeOS: its os.json), for a fix or a re-collect on a node whose sweep
// found it to be Linux.
func (e *Engine) osOf(t Target) evidence.OS {
	if t.OS != "" {
		return t.OS
	}
	return evidence.NodeOS(e.Tree.Evidence(), t.Name)
}

// nodeNeeds is every node file the probes read, of both kinds of node: each node's sweep
// asks for the files of its own kind (sweep.NamesFor).
func (e *Engine) nodeNeeds() []string {
	ps := e.Registry.Probes()
	return slices.Sorted(slices.Values(append(e.Registry.NodeNeedsOf(evidence.Windows, ps), e.Registry.NodeNeedsOf(evidence.Linux, ps)...)))
}

func sweepErrText(t Target, err error) string {
	return fmt.Sprintf("%v\nnode %s over %s (%s)", err, t.Name, t.Transport.Kind, t.Transport.Address())
}

// Sort puts findings in the order every front end shows (report.Sort: probes.Compare,
// consequences folded under their causes), in place.
func Sort(fs []probes.Finding) { copy(fs, report.Sort(fs)) }

// Analyze judges evidence already collected (a folder assembled by hand, an unpacked
// bundle, a scenario) with the same probes a live run uses. nodes limits the judged
// nodes; empty means every nodes/<node>/ folder. It stops between nodes once ctx is done
// (Ctrl-C on a bundle of many nodes), returning ctx's error and no findings: a partial
// judgement must not read as a whole one.
func Analyze(ctx context.Context, reg *probes.Registry, ev evidence.Evidence, nodes []string) ([]probes.Finding, error) {
	if ev.Memo == nil {
		ev.Memo = evidence.NewMemo() // cluster files are decoded once for all nodes
	}
	list, err := ev.ListNodes()
	if err != nil {
		// An unreadable nodes/ is not "no node evidence": say what is wrong with it.
		return nil, fmt.Errorf("reading the node evidence: %w", err)
	}
	have := list.Names
	if len(nodes) == 0 {
		nodes = have
	}
	// A file where a node folder belongs was meant as a node: say so, never drop it.
	var out []probes.Finding
	for _, n := range list.NotFolders {
		out = append(out, probes.Finding{Probe: probes.ReachID, Node: n, Status: probes.Error,
			Summary:  "nodes/" + n + " is a file, not a folder: a node's evidence goes in files inside nodes/" + n + "/",
			Evidence: []string{"nodes/" + n}})
	}
	if len(nodes) == 0 && len(out) == 0 {
		return nil, fmt.Errorf("no node evidence: expected folders nodes/<node-name>/ (wintroubleshoot probes --evidence lists the files each holds)")
	}
	known := map[string]bool{}
	for _, n := range have {
		known[n] = true
	}
	for _, n := range nodes {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("judging the evidence: %w", err)
		}
		if !known[n] {
			out = append(out, probes.Finding{Probe: probes.ReachID, Node: n, Status: probes.Error,
				Summary: "no evidence for this node (no nodes/" + n + "/ folder)"})
			continue
		}
		out = append(out, reg.Run(n, ev)...)
	}
	Link(probes.CauseRules(), out)
	Sort(out) // after linking: causes lead their consequences
	return out, nil
}
