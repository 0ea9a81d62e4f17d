// Package agent is watch mode: `wintroubleshoot agent` sweeps its own node on an
// interval, judges it with the same probes as a live run, never fixes, and puts what it
// found where Kubernetes users look (Node conditions, Events, a report object, Prometheus
// metrics). The CLI reads every agent's report back in one request (ReadFleet).
package agent

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// Where the reports live. A ConfigMap per node, named as the node, in one namespace:
//   - no CRD to install (installing one needs cluster-admin; a DaemonSet's chart often
//     cannot), and kubectl, RBAC and admission read it as any other object;
//   - the fleet is one LIST of one namespace with one label, so --from-agents costs one
//     request whatever the number of nodes;
//   - its name is the node's, so an admission policy can hold an agent to its own report
//     by comparing two names (deploy/base/policy.yaml).
//
// What a CRD would add (a schema, printer columns) is not worth the install step here:
// the report is written and read by this program only, which checks its Version.
const (
	Namespace   = "wintroubleshoot"
	ReportLabel = "wintroubleshoot.io/report" // value: "agent"
	ReportKey   = "report.json"
	// FieldManager names the agent's writes (server-side apply, status patches).
	FieldManager = "wintroubleshoot-agent"
	// ReportVersion is the layout of report.json; a reader refuses others.
	ReportVersion = 1
)

// Report is one sweep of one node, as the agent stores it. Passing findings keep their
// probe, status and summary only: a fleet of thousands of reports stays small to list.
type Report struct {
	Version  int           `json:"version"`
	Node     string        `json:"node"`
	OS       evidence.OS   `json:"os"`
	Agent    string        `json:"agent"` // the agent's version
	SweptAt  time.Time     `json:"sweptAt"`
	Duration time.Duration `json:"durationNs"`
	// Interval is the agent's sweep interval: a reader calls a report stale past a few.
	Interval time.Duration `json:"intervalNs"`
	// SweepError is set when the sweep gave nothing to judge (the findings then hold one
	// REACH error).
	SweepError string `json:"sweepError,omitempty"`
	// Evidence is what the sweep collected: file count and the snippets that failed.
	Evidence EvidenceSummary `json:"evidence"`
	// RootCauses are the findings to fix first (report.RootCauses of Findings).
	RootCauses []report.RootCause `json:"rootCauses"`
	Findings   []probes.Finding   `json:"findings"`
}

// EvidenceSummary says how complete the sweep was.
type EvidenceSummary struct {
	Files    int      `json:"files"`
	Errors   []string `json:"errors,omitempty"`   // snippets that failed (a .err file)
	Timeouts []string `json:"timeouts,omitempty"` // of those, the ones cut short by time
}

// compact drops what a passing or skipped finding needs only in a full report.
func compact(fs []probes.Finding) []probes.Finding {
	out := make([]probes.Finding, len(fs))
	for i, f := range fs {
		if f.Status < probes.Warn {
			f = probes.Finding{Probe: f.Probe, Node: f.Node, Status: f.Status, Summary: f.Summary}
		}
		out[i] = f
	}
	return out
}

// Encode is the report as stored.
func (r Report) Encode() ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encoding the report of %s: %w", r.Node, err)
	}
	return b, nil
}

// DecodeReport reads a stored report, refusing another layout.
func DecodeReport(b []byte) (Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return Report{}, fmt.Errorf("reading an agent report: %w", err)
	}
	if r.Version != ReportVersion {
		return Report{}, fmt.Errorf("agent report of %q has layout %d, this build reads %d", r.Node, r.Version, ReportVersion)
	}
	return r, nil
}
