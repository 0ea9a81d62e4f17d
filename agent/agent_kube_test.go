package agent_test

import (
	"context"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	winrmtr "github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// The scenario the node starts in, and the fix whose after/ tree is the node once someone
// started the kubelet again (the agent itself never fixes).
const (
	scenarioName = "kubelet-service-stopped"
	scenarioNode = "winpool-7k2pq"
	recoveredBy  = "after/fix-start-service/"
	testUser     = "Administrator"
	testPassword = "agent-test-pw"
)

// nodeState is a scenario tree whose node files can switch to their after/ overlay: the
// fake node reads it on every command, so the next sweep sees the node as it is now.
type nodeState struct {
	mu        sync.Mutex
	base      fs.FS
	recovered bool
}

func (s *nodeState) recover() { s.mu.Lock(); s.recovered = true; s.mu.Unlock() }

func (s *nodeState) Open(name string) (fs.File, error) {
	s.mu.Lock()
	rec := s.recovered
	s.mu.Unlock()
	if rec && strings.HasPrefix(name, "nodes/") {
		if f, err := s.base.Open(recoveredBy + name); err == nil {
			return f, nil
		}
	}
	return s.base.Open(name)
}

// startNode serves the scenario's node over real WinRM on loopback and returns the agent
// source sweeping it, with the same snippets the local transport runs on a node.
func startNode(t *testing.T, state fs.FS) agent.Source {
	t.Helper()
	fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: state, Node: scenarioNode})
	srv, err := fakenode.StartWinRM(context.Background(), fake, fakenode.WinRMOptions{User: testUser, Password: testPassword, AllowUnencrypted: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	host, port := splitAddr(t, srv.Addr())
	cfg := transport.Config{Kind: transport.WinRM, Host: host, Port: port, User: testUser, Password: testPassword, Auth: "ntlm", Timeout: 30 * time.Second}
	eng := &engine.Engine{Registry: probes.Default(), Tree: evidence.NewTree(), Timeout: time.Minute,
		Dial: func(_ context.Context, c transport.Config) (transport.Transport, error) { return winrmtr.New(c) }}
	return agent.EngineSource{Engine: eng, Target: engine.Target{Name: scenarioNode, Transport: cfg, OS: evidence.Windows}}
}

// TestAgentReportsFailureAndRecovery: against the real API server, an agent sweeping a
// fake node whose kubelet is stopped sets WindowsServiceProblem (reason SVC-KUBELET),
// records a Warning event, writes its report and exports the failing status; once the
// node's kubelet runs again the next sweep clears the condition, records the recovery
// and the metrics follow. The other conditions stay False throughout: no false alarm.
func TestAgentReportsFailureAndRecovery(t *testing.T) {
	c := kubeapi.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	ctx := context.Background()
	setupCluster(t, cs, scenarioNode)
	base, err := fs.Sub(scenarios.FS(), scenarioName)
	if err != nil {
		t.Fatal(err)
	}
	state := &nodeState{base: base}
	metrics := agent.NewMetrics()
	scrape := httptest.NewServer(metrics.Handler())
	defer scrape.Close()
	a := &agent.Agent{Node: scenarioNode, Source: startNode(t, state), Registry: probes.Default(), Version: "test",
		Publisher: &agent.Publisher{Client: cs, Node: scenarioNode}, Metrics: metrics, Interval: time.Minute}

	r, err := a.Step(ctx)
	if err != nil {
		t.Fatalf("first sweep: %v", err)
	}
	if r.SweepError != "" || r.Evidence.Files < 20 {
		t.Fatalf("sweep error %q, %d files", r.SweepError, r.Evidence.Files)
	}
	cond := conditions(t, cs, scenarioNode)
	want := map[corev1.NodeConditionType]string{agent.ServiceProblem: "True", agent.NetworkProblem: "False", agent.HostProblem: "False"}
	checkConditions(t, cond, want)
	if got := cond[agent.ServiceProblem]; got.Reason != "SVC-KUBELET" || !strings.Contains(got.Message, "kubelet") {
		t.Errorf("service condition: reason %q message %q, want SVC-KUBELET and the summary", got.Reason, got.Message)
	}
	if _, ok := cond[corev1.NodeReady]; !ok {
		t.Errorf("the kubelet's Ready condition was dropped by the patch: %v", cond)
	}
	firstChange := cond[agent.ServiceProblem].LastTransitionTime
	checkEvents(t, cs, map[string]string{"SVC-KUBELET": corev1.EventTypeWarning})
	checkReport(t, cs, "SVC-KUBELET", probes.Fail)
	checkMetric(t, scrape.URL, `wintroubleshoot_probe_status{probe="SVC-KUBELET",status="fail"} 1`)
	checkMetric(t, scrape.URL, `wintroubleshoot_sweeps_total{result="ok"} 1`)

	time.Sleep(1100 * time.Millisecond) // condition times have one-second precision
	state.recover()
	if _, err := a.Step(ctx); err != nil {
		t.Fatalf("second sweep: %v", err)
	}
	cond = conditions(t, cs, scenarioNode)
	checkConditions(t, cond, map[corev1.NodeConditionType]string{agent.ServiceProblem: "False", agent.NetworkProblem: "False", agent.HostProblem: "False"})
	if got := cond[agent.ServiceProblem]; got.Reason != "NoWindowsServiceProblem" || !got.LastTransitionTime.After(firstChange.Time) {
		t.Errorf("cleared condition: reason %q, transition %v (first %v)", got.Reason, got.LastTransitionTime, firstChange)
	}
	checkEvents(t, cs, map[string]string{"SVC-KUBELET": corev1.EventTypeWarning, "SVC-KUBELET/recovered": corev1.EventTypeNormal})
	checkReport(t, cs, "SVC-KUBELET", probes.Pass)
	checkMetric(t, scrape.URL, `wintroubleshoot_probe_status{probe="SVC-KUBELET",status="fail"} 0`)
	checkMetric(t, scrape.URL, `wintroubleshoot_probe_status{probe="SVC-KUBELET",status="pass"} 1`)
	checkMetric(t, scrape.URL, `wintroubleshoot_sweeps_total{result="ok"} 2`)
	checkMetric(t, scrape.URL, "wintroubleshoot_last_success_timestamp_seconds ")
}

// setupCluster creates the agents' namespace and Windows nodes with a Ready condition, as
// a kubelet would have set it.
func setupCluster(t testing.TB, cs kubernetes.Interface, nodes ...string) {
	t.Helper()
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: agent.Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{"kubernetes.io/os": "windows"}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		now := metav1.Now()
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: now, LastTransitionTime: now}}
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func conditions(t *testing.T, cs kubernetes.Interface, node string) map[corev1.NodeConditionType]corev1.NodeCondition {
	t.Helper()
	n, err := cs.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[corev1.NodeConditionType]corev1.NodeCondition{}
	for _, c := range n.Status.Conditions {
		out[c.Type] = c
	}
	return out
}

func checkConditions(t *testing.T, got map[corev1.NodeConditionType]corev1.NodeCondition, want map[corev1.NodeConditionType]string) {
	t.Helper()
	for typ, status := range want {
		if c := got[typ]; string(c.Status) != status {
			t.Errorf("condition %s: %s (%s: %s), want %s", typ, c.Status, c.Reason, c.Message, status)
		}
	}
}

// checkEvents wants exactly these events on the node: reason (with "/recovered" for a
// recovery) -> type.
func checkEvents(t *testing.T, cs kubernetes.Interface, want map[string]string) {
	t.Helper()
	list, err := cs.CoreV1().Events(agent.EventNamespace).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.kind=Node,involvedObject.name=" + scenarioNode})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range list.Items {
		key := e.Reason
		if strings.HasPrefix(e.Message, "recovered: ") {
			key += "/recovered"
		}
		got[key] = e.Type
	}
	if len(got) != len(want) || len(list.Items) != len(want) {
		t.Errorf("events %v (%d), want %v", got, len(list.Items), want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("event %s: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

func checkReport(t *testing.T, cs kubernetes.Interface, probe string, want probes.Status) {
	t.Helper()
	p := &agent.Publisher{Client: cs, Node: scenarioNode}
	r, err := p.Previous(context.Background())
	if err != nil || r == nil {
		t.Fatalf("reading the report back: %v %v", r, err)
	}
	for _, f := range r.Findings {
		if f.Probe == probe {
			if f.Status != want {
				t.Errorf("report: %s is %s, want %s", probe, f.Status, want)
			}
			return
		}
	}
	t.Errorf("report has no %s finding", probe)
}

func checkMetric(t *testing.T, url, line string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), line) {
		t.Errorf("/metrics has no %q", line)
	}
}

func splitAddr(t *testing.T, addr string) (string, int) {
	t.Helper()
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return host, port
}
