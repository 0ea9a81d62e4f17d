package agent_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// scenarioSource is a scenario's evidence as an agent source, the node renamed so one
// scenario stands for many nodes.
type scenarioSource struct{ fsys fs.FS }

func (s scenarioSource) Sweep(context.Context) (evidence.Evidence, error) {
	return evidence.Evidence{FS: s.fsys}, nil
}

// sampleReport is the report an agent writes for the scenario's node (a real sweep's
// size: every probe's finding), renamed to node.
func sampleReport(t testing.TB, node string, at time.Time) agent.Report {
	t.Helper()
	base, err := fs.Sub(scenarios.FS(), scenarioName)
	if err != nil {
		t.Fatal(err)
	}
	a := &agent.Agent{Node: scenarioNode, Source: scenarioSource{base}, Registry: probes.Default(), Version: "test", Interval: time.Minute,
		Now: func() time.Time { return at }}
	r := a.SweepOnce(context.Background())
	r.Node = node
	for i := range r.Findings {
		r.Findings[i].Node = node
	}
	return r
}

// putReports writes reports as the agents would (ConfigMaps named as their nodes),
// several at a time.
func putReports(t testing.TB, cs kubernetes.Interface, reports []agent.Report) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(16)
	for _, r := range reports {
		g.Go(func() error {
			b, err := r.Encode()
			if err != nil {
				return err
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: r.Node, Namespace: agent.Namespace,
				Labels: map[string]string{agent.ReportLabel: "agent"}}, Data: map[string]string{agent.ReportKey: string(b)}}
			_, err = cs.CoreV1().ConfigMaps(agent.Namespace).Create(context.Background(), cm, metav1.CreateOptions{})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestReadFleetMarksMissingAndStale: one list gives a fresh agent's findings, a stale
// agent's (with a warning that they are old), an error for a node without an agent and
// for a report this build cannot read.
func TestReadFleetMarksMissingAndStale(t *testing.T) {
	c := kubeapi.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	setupCluster(t, cs)
	now := time.Now()
	putReports(t, cs, []agent.Report{sampleReport(t, "win-fresh", now.Add(-2*time.Minute)), sampleReport(t, "win-stale", now.Add(-time.Hour))})
	bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "win-garbled", Labels: map[string]string{agent.ReportLabel: "agent"}},
		Data: map[string]string{agent.ReportKey: `{"version": 99}`}}
	if _, err := cs.CoreV1().ConfigMaps(agent.Namespace).Create(context.Background(), bad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	entries, err := agent.ReadFleet(context.Background(), cs, "", []string{"win-fresh", "win-stale", "win-missing", "win-garbled"}, now)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]agent.State{}
	for _, e := range entries {
		got[e.Node] = e.State
	}
	want := map[string]agent.State{"win-fresh": agent.Fresh, "win-stale": agent.Stale, "win-missing": agent.Missing, "win-garbled": agent.Unreadable}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("states %v, want %v", got, want)
	}
	agentStatus := map[string]probes.Status{}
	kubelet := map[string]probes.Status{}
	for _, f := range agent.Findings(entries) {
		switch f.Probe {
		case agent.AgentID:
			agentStatus[f.Node] = f.Status
			if f.Node == "win-stale" && !strings.Contains(f.Summary, "stale") {
				t.Errorf("stale agent's finding: %q", f.Summary)
			}
		case "SVC-KUBELET":
			kubelet[f.Node] = f.Status
		}
	}
	wantAgent := map[string]probes.Status{"win-fresh": probes.Pass, "win-stale": probes.Warn, "win-missing": probes.Error, "win-garbled": probes.Error}
	if fmt.Sprint(agentStatus) != fmt.Sprint(wantAgent) {
		t.Errorf("AGENT findings %v, want %v", agentStatus, wantAgent)
	}
	if kubelet["win-fresh"] != probes.Fail || kubelet["win-stale"] != probes.Fail || len(kubelet) != 2 {
		t.Errorf("SVC-KUBELET from the reports: %v, want fail on the fresh and the stale node only", kubelet)
	}
}

// BenchmarkReadFleet1000 is --from-agents' read of 1,000 agents' reports (each a full
// sweep's findings) from the real API server: one LIST, decoded and turned into findings.
func BenchmarkReadFleet1000(b *testing.B) {
	c := kubeapi.Start(b)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	setupCluster(b, cs)
	now := time.Now()
	sample := sampleReport(b, "x", now)
	reports := make([]agent.Report, 1000)
	names := make([]string, len(reports))
	for i := range reports {
		r := sample
		r.Node = fmt.Sprintf("win-%04d", i)
		r.Findings = append([]probes.Finding(nil), sample.Findings...)
		for j := range r.Findings {
			r.Findings[j].Node = r.Node
		}
		reports[i], names[i] = r, r.Node
	}
	putReports(b, cs, reports)
	enc, _ := sample.Encode()
	b.ResetTimer()
	for b.Loop() {
		entries, err := agent.ReadFleet(context.Background(), cs, "", names, now)
		if err != nil {
			b.Fatal(err)
		}
		if fs := agent.Findings(entries); len(fs) < len(reports)*10 {
			b.Fatalf("%d findings", len(fs))
		}
	}
	b.ReportMetric(float64(len(enc)), "report-bytes")
}
