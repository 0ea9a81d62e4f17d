package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	// uids maps the scenario's pod UIDs to those of the pods created in the test API
	// server, so the node's containers belong to pods the API knows (RUNTIME-LEFTOVERS).
	uids map[string]string
}

func (s *nodeState) recover() { s.mu.Lock(); s.recovered = true; s.mu.Unlock() }

func (s *nodeState) Open(name string) (fs.File, error) {
	s.mu.Lock()
	rec := s.recovered
	s.mu.Unlock()
	from := name
	if rec && strings.HasPrefix(name, "nodes/") {
		if _, err := fs.Stat(s.base, recoveredBy+name); err == nil {
			from = recoveredBy + name
		}
	}
	b, err := fs.ReadFile(s.base, from)
	if err != nil || !strings.HasPrefix(name, "nodes/") {
		return s.base.Open(from)
	}
	for old, uid := range s.uids {
		b = bytes.ReplaceAll(b, []byte(old), []byte(uid))
	}
	return fstest.MapFS{name: {Data: b}}.Open(name)
}

// startNode serves the scenario's node over real WinRM on loopback and returns the agent
// source sweeping it, with the same snippets the local transport runs on a node.
func startNode(t *testing.T, state fs.FS, cs kubernetes.Interface) agent.Source {
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
	return agent.EngineSource{Engine: eng, Target: engine.Target{Name: scenarioNode, Transport: cfg, OS: evidence.Windows},
		Cluster: agent.NodeAndPods(cs, scenarioNode)}
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
	setupCluster(t, cs)
	base, err := fs.Sub(scenarios.FS(), scenarioName)
	if err != nil {
		t.Fatal(err)
	}
	state := &nodeState{base: base, uids: createScenarioNode(t, cs, base, scenarioNode)}
	metrics := agent.NewMetrics()
	scrape := httptest.NewServer(metrics.Handler())
	defer scrape.Close()
	a := &agent.Agent{Node: scenarioNode, Source: startNode(t, state, cs), Registry: probes.Default(), Version: "test",
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

// createScenarioNode creates the scenario's Node object and the pods on it in the API
// server, as the kubelet would have registered them, and returns the pods' new UIDs by
// their scenario UIDs.
func createScenarioNode(t *testing.T, cs kubernetes.Interface, scenario fs.FS, name string) map[string]string {
	t.Helper()
	ctx := context.Background()
	var nodes corev1.NodeList
	readJSON(t, scenario, evidence.PathNodes, &nodes)
	for _, n := range nodes.Items {
		if n.Name != name {
			continue
		}
		status := n.Status
		n.ObjectMeta = metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, Annotations: n.Annotations}
		created, err := cs.CoreV1().Nodes().Create(ctx, &n, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Status = status
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var pods corev1.PodList
	readJSON(t, scenario, evidence.PathPods, &pods)
	uids := map[string]string{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != name {
			continue
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		status, old := p.Status, string(p.UID)
		p.ObjectMeta = metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels}
		created, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, &p, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("pod %s/%s: %v", p.Namespace, p.Name, err)
		}
		created.Status = status
		if _, err := cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("pod %s/%s status: %v", p.Namespace, p.Name, err)
		}
		uids[old] = string(created.UID)
	}
	return uids
}

func readJSON(t *testing.T, fsys fs.FS, p string, v any) {
	t.Helper()
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", p, err)
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
