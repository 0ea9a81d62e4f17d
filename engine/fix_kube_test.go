package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// apiBench is a real API server holding a scenario's nodes, and a fix runner whose
// evidence tree is re-collected from it.
type apiBench struct {
	cs    *kubernetes.Clientset
	tree  *evidence.Tree
	fixer *engine.Fixer
	audit *engine.Audit
}

func newAPIBench(t *testing.T, scenario string) *apiBench {
	t.Helper()
	cl := kubeapi.Start(t)
	cs, err := kubernetes.NewForConfig(cl.Config)
	if err != nil {
		t.Fatal(err)
	}
	fsys, meta, _, err := scenarios.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fsys.(interface{ ReadFile(string) ([]byte, error) }).ReadFile(evidence.PathNodes)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := decode.Nodes(evidence.PathNodes, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range nodes {
		n.ResourceVersion, n.UID, n.ManagedFields, n.CreationTimestamp = "", "", nil, metav1.Time{}
		created, err := cs.CoreV1().Nodes().Create(ctx, &n, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating node %s: %v", n.Name, err)
		}
		created.Status = n.Status
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &cl.Kubeconfig
	client, err := kube.New(flags)
	if err != nil {
		t.Fatal(err)
	}
	tree := clusterTree(t, fsys)
	// Node evidence as the scenario recorded it; the cluster part comes from the API.
	for _, node := range meta.Nodes {
		if err := tree.CopyFrom(fsys, "nodes/"+node); err != nil {
			t.Fatal(err)
		}
	}
	refresh := func(ctx context.Context) error { _, err := client.Collect(ctx, tree); return err }
	if err := refresh(ctx); err != nil {
		t.Fatal(err)
	}
	audit := &engine.Audit{Path: t.TempDir() + "/audit.jsonl"}
	eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: tree}
	// No kubelet runs here to finish evicted pods: a zero grace period deletes them at once.
	fx := &engine.Fixer{Engine: eng, Kube: client, Refresh: refresh, Audit: audit, User: "tester",
		Drain: kube.DrainOptions{GracePeriodSeconds: ptr.To[int64](0), Timeout: 20 * time.Second}}
	return &apiBench{cs: cs, tree: tree, fixer: fx, audit: audit}
}

func (b *apiBench) finding(t *testing.T, node, probe string) probes.Finding {
	t.Helper()
	p, _ := probes.Default().Get(probe)
	fs := probes.RunProbe(p, node, b.tree.Evidence())
	if len(fs) == 0 {
		t.Fatalf("no %s finding", probe)
	}
	return fs[0]
}

func TestPodCIDRPatchAgainstAPIServer(t *testing.T) {
	b := newAPIBench(t, "podcidr-empty")
	ctx := context.Background()
	f := b.finding(t, "win-1", "NODE-PODCIDR")
	if f.Status != probes.Fail || f.Fix == nil || f.Fix.Action != probes.PatchPodCIDR {
		t.Fatalf("before: %+v", f)
	}
	out, err := b.fixer.Apply(ctx, f, f.Fix, engine.Typed("y"))
	if err != nil || out.Result != engine.Verified {
		t.Fatalf("apply: %v %+v", err, out)
	}
	n, err := b.cs.CoreV1().Nodes().Get(ctx, "win-1", metav1.GetOptions{})
	if err != nil || n.Spec.PodCIDR != f.Fix.Params["podCIDR"] || len(n.Spec.PodCIDRs) != 1 {
		t.Fatalf("the API has podCIDR %q %v (%v), want %v", n.Spec.PodCIDR, n.Spec.PodCIDRs, err, f.Fix.Params["podCIDR"])
	}
	// The same finding again: the precondition (podCIDR empty) no longer holds.
	if out, err := b.fixer.Apply(ctx, f, f.Fix, engine.Typed("y")); !errors.Is(err, engine.ErrRefused) || out.Result != engine.Refused {
		t.Fatalf("stale podCIDR fix was not refused: %v", err)
	}
	assertAudit(t, b.audit, "verified", "refused")
}

func TestDrainAndDeleteAgainstAPIServer(t *testing.T) {
	b := newAPIBench(t, "reboot-services-stopped")
	ctx := context.Background()
	node := "winpool-7k2pq"
	// A workload pod and a DaemonSet pod on the node.
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "npd", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "npd"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "npd"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "npd", Image: "npd:1"}}}}}}
	ds, err := b.cs.AppsV1().DaemonSets("kube-system").Create(ctx, ds, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "web", Image: "web:1"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "npd-x", Namespace: "kube-system", OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "npd", Image: "npd:1"}}}},
	}
	for _, p := range pods {
		if _, err := b.cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f := b.finding(t, node, "SVC-REBOOT")
	del := pick(f, "delete-node")
	if del == nil || !del.Disruptive {
		t.Fatalf("SVC-REBOOT offers no disruptive delete-node choice: %+v", f.Fix)
	}
	if out, err := b.fixer.Apply(ctx, f, del, engine.HeadlessAnswer(true, "")); !errors.Is(err, engine.ErrRefused) || out.Result != engine.Refused {
		t.Fatalf("delete-node ran on --yes alone: %v", err)
	}
	// Drain, as HNS-NETWORK offers before recreating a network: built as that probe builds it.
	drain := &probes.Fix{ID: "drain", Kind: probes.KubeAPI, Action: probes.Drain, Disruptive: true,
		Verify: "NODE-SCHEDULING", VerifyStatus: probes.Exactly(probes.Warn), Commands: []string{"kubectl drain " + node}}
	g := f
	g.Fix = drain
	if _, err := b.fixer.Apply(ctx, g, drain, engine.Typed(node)); err == nil || !strings.Contains(err.Error(), "precondition") {
		// SVC-REBOOT does not offer drain: the runner must refuse a fix the finding no longer offers.
		t.Fatalf("a fix the finding does not offer ran: %v", err)
	}
	out, err := b.fixer.Apply(ctx, f, del, engine.HeadlessAnswer(true, node))
	if err != nil || out.Result != engine.Verified || out.After.Status != probes.Skip {
		t.Fatalf("delete-node: %v %+v", err, out)
	}
	if _, err := b.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err == nil {
		t.Fatal("the node still exists")
	}
	assertAudit(t, b.audit, "refused", "refused", "verified")
}

// TestDrainAgainstAPIServer: an HNS network built for another podCIDR must be recreated,
// which needs the node drained. The preview lists what kubectl drain's filters decide; a
// pod no controller manages makes the drain refuse, changing nothing, until --force is
// chosen; then the drain evicts it, leaves the DaemonSet pod, and verifies by the node
// showing as cordoned (a warn, which is the fix's verified state, not a failure).
func TestDrainAgainstAPIServer(t *testing.T) {
	b := newAPIBench(t, "healthy-sdn-l2bridge-docker")
	ctx := context.Background()
	node := "win-1"
	b.tree.Put(evidence.NodeFile(node, evidence.FileHNSNetworks), []byte(`[{"Name":"nat","Type":"nat","Subnets":[{"AddressPrefix":"172.24.144.0/20"}]},`+
		`{"Name":"l2bridge","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.200.9.0/24","GatewayAddress":"10.200.9.1"}]}]`))
	yes := true
	ds, err := b.cs.AppsV1().DaemonSets("kube-system").Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "flannel", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "f"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "f"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "f", Image: "f:1"}}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "iis-0", Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "iis", Image: "iis:ltsc2019"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "flannel-x", Namespace: "kube-system", OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "f", Image: "f:1"}}}},
	} {
		if _, err := b.cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f := b.finding(t, node, "HNS-NETWORK")
	if f.Status != probes.Fail || f.Fix == nil || f.Fix.Action != probes.Drain {
		t.Fatalf("HNS-NETWORK: %s %s, fix %+v", f.Status, f.Summary, f.Fix)
	}
	preview := b.fixer.Preview(ctx, f, f.Fix)
	for _, want := range []string{"kubectl drain win-1 --ignore-daemonsets --grace-period=0 --timeout=20s", "Evicts now (PodDisruptionBudgets hold): no pods",
		"kubectl: ignoring DaemonSet-managed Pods: kube-system/flannel-x", "REFUSES: cannot delete Pods that declare no controller (use --force to override): default/iis-0"} {
		if !strings.Contains(preview, want) {
			t.Errorf("preview lacks %q:\n%s", want, preview)
		}
	}
	out, err := b.fixer.Apply(ctx, f, f.Fix, engine.Typed(node))
	if !errors.Is(err, engine.ErrRefused) || out.Result != engine.Refused || !strings.Contains(out.Reason, "default/iis-0") {
		t.Fatalf("drain with an unmanaged pod: %v %+v", err, out)
	}
	if n, err := b.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil || n.Spec.Unschedulable {
		t.Fatalf("a refused drain cordoned the node (%v)", err)
	}

	b.fixer.Drain.Force = true
	if preview := b.fixer.Preview(ctx, f, f.Fix); !strings.Contains(preview, "--ignore-daemonsets --force") ||
		!strings.Contains(preview, "Evicts now (PodDisruptionBudgets hold): default/iis-0") || strings.Contains(preview, "REFUSES") {
		t.Errorf("preview with --force:\n%s", preview)
	}
	out, err = b.fixer.Apply(ctx, f, f.Fix, engine.Typed(node))
	if err != nil || out.Result != engine.Verified || !out.OK() || out.After.Status != probes.Warn {
		t.Fatalf("drain: %v %+v", err, out)
	}
	if !strings.HasPrefix(out.Line(), "verified: ! NODE-SCHEDULING") {
		t.Errorf("result line %q", out.Line())
	}
	if len(out.Evicted) != 1 || out.Evicted[0] != "default/iis-0" {
		t.Fatalf("evicted %v, want only the workload", out.Evicted)
	}
	n, err := b.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil || !n.Spec.Unschedulable {
		t.Fatalf("node not cordoned: %v", err)
	}
	if _, err := b.cs.CoreV1().Pods("kube-system").Get(ctx, "flannel-x", metav1.GetOptions{}); err != nil {
		t.Fatalf("the DaemonSet pod was evicted: %v", err)
	}
	assertAudit(t, b.audit, "refused", "verified")
	if e, _ := b.audit.Entries(); len(e) == 2 && !strings.Contains(strings.Join(e[1].Commands, "\n"), "--force") {
		t.Errorf("the audit shows other commands than ran: %v", e[1].Commands)
	}
}
