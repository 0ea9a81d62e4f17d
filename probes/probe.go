package probes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// Spec is what a probe declares about itself. Reads drives what a sweep collects, what a
// fix re-collects before verifying, what an unreachable node skips and what
// `wintroubleshoot probes` tells a support engineer to ask for; a test fails when a probe
// reads evidence its Spec does not list.
type Spec struct {
	ID    string         // stable, e.g. "HNS-NETWORK"
	Title string         // what it judges, one line
	FM    []string       // failure modes it detects (FM-xx of the failure catalogue)
	Reads []evidence.Ref // every evidence key it may read
	// Layouts are the node layouts (layouts.go) whose healthy scenario it judges rather
	// than skips; a test holds the list to what the scenarios show.
	Layouts []string
	// OS is the kind of node it judges: empty for Windows, evidence.Linux for a Linux
	// worker. The registry runs a probe only on nodes of its kind (NodeOS).
	OS evidence.OS
}

// Checker is one probe: its spec and its judgment. Check must be pure (no network, no
// clock, no globals), so it judges the same live, on a bundle and on fixtures, and it
// returns exactly one finding, built with c.Pass, c.Warn, c.Fail or c.Skip.
type Checker interface {
	Spec() Spec
	Check(c C) Finding
}

// Probe is a registered probe.
type Probe struct {
	spec  Spec
	check func(C) Finding
}

// ID is the probe's stable ID.
func (p Probe) ID() string { return p.spec.ID }

// Title says what it judges.
func (p Probe) Title() string { return p.spec.Title }

// Spec is the probe's declaration.
func (p Probe) Spec() Spec { return p.spec }

// OS is the kind of node the probe judges.
func (p Probe) OS() evidence.OS {
	if p.spec.OS == "" {
		return evidence.Windows
	}
	return p.spec.OS
}

// Needs lists the evidence it reads on the node it judges: node file names and cluster
// paths. Node keys of the other kind of node are read on peers (NET-ROUTES reads a Linux
// peer's routes back), so they are never collected on this node.
func (p Probe) Needs() []string { return evidence.Names(p.own()) }

// own is its Reads without the other OS's node keys.
func (p Probe) own() []evidence.Ref {
	var out []evidence.Ref
	for _, k := range p.spec.Reads {
		if m := k.Meta(); m.Scope == evidence.Cluster || m.NodeOS() == p.OS() {
			out = append(out, k)
		}
	}
	return out
}

// readsNode says whether any of its evidence is a node file.
func (p Probe) readsNode() bool {
	return slices.ContainsFunc(p.own(), func(k evidence.Ref) bool { return k.Meta().Scope == evidence.Node })
}

// Registry is an explicit, ordered set of probes.
type Registry struct {
	probes []Probe
	byID   map[string]Probe
}

// NewRegistry builds a registry, refusing duplicate IDs and specs without an ID, a title
// or any evidence to read.
func NewRegistry(cs ...Checker) (*Registry, error) {
	r := &Registry{byID: map[string]Probe{}}
	for _, c := range cs {
		s := c.Spec()
		if s.ID == "" || s.Title == "" || len(s.Reads) == 0 {
			return nil, fmt.Errorf("probe %q: a spec needs an ID, a title and the evidence it reads", s.ID)
		}
		if _, dup := r.byID[s.ID]; dup {
			return nil, fmt.Errorf("probe ID %s registered twice", s.ID)
		}
		p := Probe{spec: s, check: c.Check}
		r.byID[s.ID] = p
		r.probes = append(r.probes, p)
	}
	return r, nil
}

// Probes returns the probes in registration order.
func (r *Registry) Probes() []Probe { return slices.Clone(r.probes) }

// IDs lists the probe IDs in registration order.
func (r *Registry) IDs() []string {
	out := make([]string, len(r.probes))
	for i, p := range r.probes {
		out[i] = p.ID()
	}
	return out
}

// IDsOf lists, in registration order, the IDs of the probes that judge a kind of node.
func (r *Registry) IDsOf(os evidence.OS) []string {
	var out []string
	for _, p := range r.probes {
		if p.OS() == os {
			out = append(out, p.ID())
		}
	}
	return out
}

// Get returns the probe with an ID.
func (r *Registry) Get(id string) (Probe, bool) { p, ok := r.byID[id]; return p, ok }

// NodeNeeds is the union of Windows node evidence names (= snippet names) the given
// probes read, sorted: what the PowerShell sweep collects.
func (r *Registry) NodeNeeds(ps []Probe) []string { return r.NodeNeedsOf(evidence.Windows, ps) }

// NodeNeedsOf is the union of node evidence names of one kind of node that those of the
// given probes judging that kind read, sorted.
func (r *Registry) NodeNeedsOf(os evidence.OS, ps []Probe) []string {
	var out []string
	for _, p := range ps {
		if p.OS() != os {
			continue
		}
		for _, k := range p.own() {
			if m := k.Meta(); m.Scope == evidence.Node && !slices.Contains(out, m.Snippet) {
				out = append(out, m.Snippet)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Run checks one node with every probe of its kind (NodeOS): Windows probes never judge
// a Linux worker, nor Linux probes a Windows node. A probe that panics on bad evidence
// becomes an Error finding instead of taking the run down: other probes and nodes still
// judge.
//
// A node that could not be reached (nodes/<node>/sweep.err) gets one REACH finding with
// the cause instead of every node probe failing alike; probes that read only cluster
// evidence still judge it. Live runs and bundles behave the same, since both are files.
func (r *Registry) Run(node string, ev evidence.Evidence) []Finding {
	if ev.Memo == nil {
		ev.Memo = evidence.NewMemo()
	}
	var out []Finding
	unreachable := ev.Has(evidence.NodeFile(node, evidence.SweepErr))
	if unreachable {
		out = append(out, reachFinding(node, ev))
	}
	os := evidence.NodeOS(ev, node)
	for _, p := range r.probes {
		if p.OS() != os || unreachable && p.readsNode() {
			continue
		}
		out = append(out, runOne(p, node, ev))
	}
	return out
}

// ReachID is the probe ID of the finding for a node that could not be reached.
const ReachID = "REACH"

func reachFinding(node string, ev evidence.Evidence) Finding {
	p := evidence.NodeFile(node, evidence.SweepErr)
	b, _ := ev.Read(p)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	f := Finding{Probe: ReachID, Node: node, Status: Error, Summary: "node not reachable: " + lines[0], Evidence: []string{p}}
	f = f.With(lines[1:]...)
	return f
}

// RunProbe checks one node with one probe: one finding, in a slice for the callers that
// merge findings.
func RunProbe(p Probe, node string, ev evidence.Evidence) []Finding {
	return []Finding{runOne(p, node, ev)}
}

func runOne(p Probe, node string, ev evidence.Evidence) (f Finding) {
	defer func() {
		if v := recover(); v != nil {
			f = Finding{Probe: p.ID(), Node: node, Status: Error,
				Summary: fmt.Sprintf("probe %s crashed on this evidence: %v", p.ID(), v)}
		}
	}()
	c := C{id: p.ID(), node: node, ev: ev, swallowed: &[]undecoded{}}
	f = p.check(c)
	f.Probe, f.Node = p.ID(), node
	if len(*c.swallowed) > 0 && f.Status != Error {
		f = undecodableFinding(p.ID(), node, *c.swallowed)
	}
	return f
}

// undecoded is a file a probe read as optional evidence that was present but could not
// be decoded.
type undecoded struct {
	path string
	err  error
}

// undecodableFinding is the Error of a probe that read an optional file it could not
// decode: judging as if the file were absent would be wrong (an events.json that is not
// JSON is not "no events"). It cites only the files it failed on.
func undecodableFinding(id, node string, bad []undecoded) Finding {
	f := Finding{Probe: id, Node: node, Status: Error,
		Summary: fmt.Sprintf("could not decode %s, so %s cannot be judged", bad[0].path, id)}
	for _, b := range bad {
		f = f.Citing(b.path).With(b.err.Error())
		if k, ok := evidence.Of(b.path); ok && k.Meta().Format != "" {
			f = f.With("expected in " + b.path + ": " + k.Meta().Format)
		}
	}
	return f
}

// Worst is the highest status among findings (Pass when empty).
func Worst(fs []Finding) Status {
	w := Pass
	for _, f := range fs {
		w = max(w, f.Status)
	}
	return w
}

// Default is the registry of every probe, in the order findings are shown. It is the only
// list of probe IDs: the scenario generator, the tests and the README tables derive theirs.
func Default() *Registry {
	r, err := NewRegistry(
		nodeReady{},
		podCIDR{},
		nodeIP{},
		hostName{},
		hostUptime{},
		knownBadBuilds{},
		hostPrereq{},
		hostProxy{},
		hostDisk{},
		hostResources{},
		hostFirewall{},
		hostAV{},
		kubeletService(),
		kubeProxyService(),
		kubeProxyHealth{},
		runtimeService(),
		reboot{},
		hnsNetwork{},
		flannelState{},
		hnsEndpoints{},
		hnsEvents{}, hnsHealth{}, hnsVFPPorts{},
		kubeProxyNetwork{},
		serviceLBs{},
		routes{},
		netMTU{},
		netOverlay{},
		dnsConfig{},
		pauseImage{},
		pauseBuild{},
		imageLayers{},
		kubeletResolv{},
		podImageBuild{},
		nodeTaint{},
		leftovers{},
		runtimeCNI{},
		logSignatures{},
		scheduling{},
		kubeletCerts{},
		clockSkew{},
		nodeClone{},
		fleetPatch{},
		// Linux workers (linux_*.go), judged only on nodes whose evidence has os.json.
		linuxServices{},
		linuxSwap{},
		linuxIPForward{},
		linuxCNISubnet{},
		linuxKubeletDNS{},
		linuxKubeProxyCIDR{},
		linuxRoutes{},
		linuxVXLAN{},
	)
	if err != nil {
		panic(err) // a bad spec is a programming error caught by every test
	}
	return r
}
