package agent

import (
	"context"
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// AgentID is the probe ID of the finding that says, per node, whether its agent reported.
const AgentID = "AGENT"

// StaleAfter is how many sweep intervals old a report may be before its agent is called
// stale: one missed sweep is jitter or a slow node, three is an agent that stopped.
const StaleAfter = 3

// State is what a node's agent report says about the agent.
type State string

const (
	Fresh      State = "fresh"      // reported within StaleAfter intervals
	Stale      State = "stale"      // reported, but longer ago
	Missing    State = "missing"    // the node has no report
	Unreadable State = "unreadable" // a report this build cannot read
)

// Entry is one node of the fleet as its agent last reported it.
type Entry struct {
	Node   string
	State  State
	Age    time.Duration // since the report's sweep; 0 when missing
	Report *Report       // nil when missing or unreadable
	Err    error         // why it is unreadable
}

// ReadFleet reads every agent's latest report in one LIST of the reports' namespace.
// nodes, when given, are the nodes that should have an agent: those without a report
// are Missing. Reports of nodes not in the list are kept (a node just deleted, or a
// Linux worker's agent). Entries are sorted by node.
func ReadFleet(ctx context.Context, cs kubernetes.Interface, namespace string, nodes []string, now time.Time) ([]Entry, error) {
	if namespace == "" {
		namespace = Namespace
	}
	list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{LabelSelector: ReportLabel + "=agent"})
	if err != nil {
		return nil, fmt.Errorf("listing the agents' reports in namespace %s: %w", namespace, err)
	}
	byNode := map[string]Entry{}
	for _, cm := range list.Items {
		e := Entry{Node: cm.Name}
		r, err := DecodeReport([]byte(cm.Data[ReportKey]))
		switch {
		case err != nil:
			e.State, e.Err = Unreadable, err
		default:
			e.Report, e.Age = &r, now.Sub(r.SweptAt)
			e.State = Fresh
			if e.Age > StaleAfter*r.Interval {
				e.State = Stale
			}
		}
		byNode[cm.Name] = e
	}
	for _, n := range nodes {
		if _, ok := byNode[n]; !ok {
			byNode[n] = Entry{Node: n, State: Missing}
		}
	}
	out := make([]Entry, 0, len(byNode))
	for _, e := range byNode {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out, nil
}

// Findings are the fleet's findings as one report shows them: each node's findings from
// its agent, and one AGENT finding per node saying how fresh they are.
func Findings(entries []Entry) []probes.Finding {
	var out []probes.Finding
	for _, e := range entries {
		out = append(out, agentFinding(e))
		if e.Report != nil {
			out = append(out, e.Report.Findings...)
		}
	}
	engine.Sort(out)
	return out
}

func agentFinding(e Entry) probes.Finding {
	f := probes.Finding{Probe: AgentID, Node: e.Node}
	switch e.State {
	case Missing:
		f.Status, f.Summary = probes.Error, "no agent report: no wintroubleshoot agent has reported from this node"
		f.Details = []string{"check the agent DaemonSet's pod on this node (kubectl -n " + Namespace + " get pods -o wide)"}
	case Unreadable:
		f.Status, f.Summary = probes.Error, "the agent report cannot be read: "+e.Err.Error()
	case Stale:
		f.Status = probes.Warn
		f.Summary = fmt.Sprintf("agent report is stale: last sweep %s ago, the agent sweeps every %s; the findings below are from then",
			e.Age.Round(time.Second), e.Report.Interval)
	default:
		f.Status = probes.Pass
		f.Summary = fmt.Sprintf("agent reported %s ago (agent %s)", e.Age.Round(time.Second), e.Report.Agent)
	}
	return f
}
