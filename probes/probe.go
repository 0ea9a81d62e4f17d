package probes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
)

// Probe judges one node from evidence. It must be pure: no network, no clock, no globals,
// so it runs the same live, on a bundle and on fixtures.
type Probe interface {
	ID() string
	Title() string
	// Needs lists the evidence it reads: node file names (collectors.Node*) and
	// cluster paths (collectors.Cluster*).
	Needs() []string
	Check(node string, ev collectors.Evidence) []Finding
}

// Registry is an explicit, ordered set of probes.
type Registry struct {
	probes []Probe
	byID   map[string]Probe
}

// NewRegistry builds a registry, refusing duplicate IDs.
func NewRegistry(ps ...Probe) (*Registry, error) {
	r := &Registry{byID: map[string]Probe{}}
	for _, p := range ps {
		if _, dup := r.byID[p.ID()]; dup {
			return nil, fmt.Errorf("probe ID %s registered twice", p.ID())
		}
		r.byID[p.ID()] = p
		r.probes = append(r.probes, p)
	}
	return r, nil
}

// Probes returns the probes in registration order.
func (r *Registry) Probes() []Probe { return append([]Probe(nil), r.probes...) }

// Get returns the probe with an ID.
func (r *Registry) Get(id string) (Probe, bool) { p, ok := r.byID[id]; return p, ok }

// NodeNeeds is the union of node evidence names the given probes read, sorted.
func (r *Registry) NodeNeeds(ps []Probe) []string {
	seen := map[string]bool{}
	for _, p := range ps {
		for _, n := range p.Needs() {
			if collectors.IsNodeFile(n) {
				seen[n] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Run checks one node with every probe. A probe that panics on bad evidence becomes an
// Error finding instead of taking the run down: other probes and nodes still judge.
//
// A node that could not be reached (nodes/<node>/sweep.err) gets one REACH finding with
// the cause instead of every node probe failing alike; probes that read only cluster
// evidence still judge it. Live runs and bundles behave the same, since both are files.
func (r *Registry) Run(node string, ev collectors.Evidence) []Finding {
	if ev.Memo == nil {
		ev.Memo = collectors.NewMemo()
	}
	var out []Finding
	unreachable := ev.Has(collectors.NodeFile(node, collectors.SweepErr))
	if unreachable {
		out = append(out, reachFinding(node, ev))
	}
	for _, p := range r.probes {
		if unreachable && readsNode(p) {
			continue
		}
		out = append(out, runOne(p, node, ev)...)
	}
	return out
}

// ReachID is the probe ID of the finding for a node that could not be reached.
const ReachID = "REACH"

func reachFinding(node string, ev collectors.Evidence) Finding {
	p := collectors.NodeFile(node, collectors.SweepErr)
	b, _ := ev.Read(p)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	f := Finding{Probe: ReachID, Node: node, Status: Error, Summary: "node not reachable: " + lines[0], Evidence: []string{p}}
	f.Details = append(f.Details, lines[1:]...)
	return f
}

func readsNode(p Probe) bool {
	for _, n := range p.Needs() {
		if collectors.IsNodeFile(n) {
			return true
		}
	}
	return false
}

// RunProbe checks one node with one probe.
func RunProbe(p Probe, node string, ev collectors.Evidence) []Finding { return runOne(p, node, ev) }

func runOne(p Probe, node string, ev collectors.Evidence) (fs []Finding) {
	defer func() {
		if v := recover(); v != nil {
			fs = []Finding{{Probe: p.ID(), Node: node, Status: Error,
				Summary: fmt.Sprintf("probe %s crashed on this evidence: %v", p.ID(), v)}}
		}
	}()
	fs = p.Check(node, ev)
	for i := range fs {
		if fs[i].Probe == "" {
			fs[i].Probe = p.ID()
		}
		if fs[i].Node == "" {
			fs[i].Node = node
		}
	}
	return fs
}

// Worst is the highest status among findings (Pass when empty).
func Worst(fs []Finding) Status {
	w := Pass
	for _, f := range fs {
		if f.Status > w {
			w = f.Status
		}
	}
	return w
}

// Default is the registry of every probe, in the order findings are shown.
func Default() *Registry {
	r, err := NewRegistry(
		NodeReadyProbe{},
		PodCIDRProbe{},
		NodeIPProbe{},
		HostNameProbe{},
		NewKubeletProbe(),
		NewKubeProxyProbe(),
		NewRuntimeProbe(),
		RebootProbe{},
		HNSNetworkProbe{},
		KubeProxyNetworkProbe{},
		RoutesProbe{},
		DNSConfigProbe{},
		PauseImageProbe{},
		PauseBuildProbe{},
		PodImageBuildProbe{},
		NodeTaintProbe{},
		LeftoversProbe{},
		SchedulingProbe{},
	)
	if err != nil {
		panic(err) // a duplicate ID is a programming error caught by every test
	}
	return r
}
