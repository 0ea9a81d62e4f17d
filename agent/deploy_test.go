package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

// manifests builds deploy/base with kustomize, as `kubectl apply -k` would.
func manifests(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "../deploy/base")
	if err != nil {
		t.Fatalf("kustomize build deploy/base: %v", err)
	}
	var out []*unstructured.Unstructured
	for _, r := range res.Resources() {
		m, err := r.Map()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
	return out
}

// apply server-side applies objects; dryRun asks the server to validate and admit them
// without storing them. Namespaces are applied for real first: a dry-run object in a
// namespace that does not exist is refused.
func apply(t *testing.T, cfg *rest.Config, objs []*unstructured.Unstructured, dryRun bool) {
	t.Helper()
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	dyn := dynamic.NewForConfigOrDie(cfg)
	for _, pass := range []bool{true, false} { // namespaces, then the rest
		for _, o := range objs {
			if (o.GetKind() == "Namespace") != pass {
				continue
			}
			gvk := o.GroupVersionKind()
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				t.Fatalf("%s: %v", gvk, err)
			}
			opts := metav1.ApplyOptions{FieldManager: "deploy-test", Force: true}
			if dryRun && !pass {
				opts.DryRun = []string{metav1.DryRunAll}
			}
			var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
			if ns := o.GetNamespace(); ns != "" {
				ri = dyn.Resource(m.Resource).Namespace(ns)
			}
			if _, err := ri.Apply(ctx, o.GetName(), o, opts); err != nil {
				t.Fatalf("applying %s %s/%s (dry run %v): %v", o.GetKind(), o.GetNamespace(), o.GetName(), opts.DryRun, err)
			}
		}
	}
}

// TestManifestsApplyServerSideDryRun: every object of deploy/base (the HostProcess
// DaemonSet, the RBAC, the admission policy) passes the real API server's validation and
// admission in a server-side dry run.
func TestManifestsApplyServerSideDryRun(t *testing.T) {
	objs := manifests(t)
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetKind()]++
	}
	for _, k := range []string{"DaemonSet", "ServiceAccount", "ClusterRole", "Role", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"} {
		if kinds[k] == 0 {
			t.Errorf("deploy/base has no %s (kinds: %v)", k, kinds)
		}
	}
	c := kubeapi.Start(t)
	apply(t, c.Config, objs, true)
}

// TestAgentCannotWriteAnotherNode: with deploy/base applied, an agent authenticated as
// the DaemonSet's pods are (a service-account token bound to its pod on node win-a)
// publishes its own node's conditions, event and report, and is refused each of those
// for node win-b, by the admission policy, as well as what RBAC never granted.
func TestAgentCannotWriteAnotherNode(t *testing.T) {
	c := kubeapi.Start(t)
	admin := kubernetes.NewForConfigOrDie(c.Config)
	apply(t, c.Config, manifests(t), false)
	ctx := context.Background()
	setupNodes(t, admin, "win-a", "win-b")
	cfg := agentConfig(t, c.Config, admin, "win-a")
	cs := kubernetes.NewForConfigOrDie(cfg)
	r := sampleReport(t, "win-a", time.Now())
	moves := agent.Transitions(nil, r.Findings)
	own := &agent.Publisher{Client: cs, Node: "win-a"}
	if err := own.Publish(ctx, r, moves); err != nil {
		t.Fatalf("the agent publishing its own node: %v", err)
	}
	// The policy takes effect a moment after it is created: wait, with dry runs that
	// store nothing, for its first refusal.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := cs.CoreV1().ConfigMaps(agent.Namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "win-b"}},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the admission policy never refused the agent of win-a a report for win-b")
		}
		time.Sleep(200 * time.Millisecond)
	}
	other := &agent.Publisher{Client: cs, Node: "win-b"}
	r.Node = "win-b"
	if err := other.Publish(ctx, r, moves); err == nil || !strings.Contains(err.Error(), "may write only its own node") {
		t.Fatalf("the agent of win-a writing win-b: %v, want the policy's refusal", err)
	}
	b, _ := admin.CoreV1().Nodes().Get(ctx, "win-b", metav1.GetOptions{})
	for _, cond := range b.Status.Conditions {
		t.Errorf("win-b got a condition from win-a's agent: %+v", cond)
	}
	if _, err := admin.CoreV1().ConfigMaps(agent.Namespace).Get(ctx, "win-b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("win-b's report written by win-a's agent: %v", err)
	}
	refused := map[string]error{}
	_, refused["a report not named win-a"] = cs.CoreV1().ConfigMaps(agent.Namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "win-b-x"}}, metav1.CreateOptions{})
	_, refused["event on win-b"] = cs.CoreV1().Events(agent.EventNamespace).Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "win-b.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "win-b"}, Reason: "SVC-KUBELET", Type: corev1.EventTypeWarning}, metav1.CreateOptions{})
	_, refused["list reports (RBAC)"] = cs.CoreV1().ConfigMaps(agent.Namespace).List(ctx, metav1.ListOptions{})
	_, refused["patch node spec (RBAC)"] = cs.CoreV1().Nodes().Patch(ctx, "win-a", "application/merge-patch+json", []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{})
	_, refused["read secrets (RBAC)"] = cs.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
	for what, err := range refused {
		if err == nil {
			t.Errorf("%s: allowed, want refused", what)
		} else if !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err) {
			t.Errorf("%s: %v, want forbidden or invalid", what, err)
		}
	}
	if cm, err := admin.CoreV1().ConfigMaps(agent.Namespace).Get(ctx, "win-a", metav1.GetOptions{}); err != nil || cm.Data[agent.ReportKey] == "" {
		t.Errorf("win-a's own report: %v", err)
	}
}

// setupNodes creates Windows nodes (the namespace comes from the manifests).
func setupNodes(t *testing.T, cs kubernetes.Interface, nodes ...string) {
	t.Helper()
	for _, n := range nodes {
		if _, err := cs.CoreV1().Nodes().Create(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{"kubernetes.io/os": "windows"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// agentConfig is the agent's identity on node: its DaemonSet pod there and that pod's
// service-account token (TokenRequest bound to the pod, as the kubelet mounts it).
func agentConfig(t *testing.T, adminCfg *rest.Config, admin kubernetes.Interface, node string) *rest.Config {
	t.Helper()
	ctx := context.Background()
	pod, err := admin.CoreV1().Pods(agent.Namespace).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "wintroubleshoot-agent-" + node},
		Spec: corev1.PodSpec{NodeName: node, ServiceAccountName: "wintroubleshoot-agent",
			Containers: []corev1.Container{{Name: "agent", Image: "wintroubleshoot"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts(agent.Namespace).CreateToken(ctx, "wintroubleshoot-agent", &authv1.TokenRequest{
		Spec: authv1.TokenRequestSpec{BoundObjectRef: &authv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for the agent's pod: %v", err)
	}
	cfg := rest.CopyConfig(adminCfg)
	cfg.BearerToken = tr.Status.Token
	return cfg
}

// chart renders deploy/helm/wintroubleshoot-agent with its default values through Go's
// text/template and sprig, the engine and functions Helm renders with (plus Helm's own
// toYaml); the chart uses nothing else of Helm's.
func chart(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	dir := "../deploy/helm/wintroubleshoot-agent"
	b, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(b, &values); err != nil {
		t.Fatal(err)
	}
	funcs := sprig.TxtFuncMap()
	funcs["toYaml"] = func(v any) string { b, _ := yaml.Marshal(v); return strings.TrimSuffix(string(b), "\n") }
	files, _ := filepath.Glob(filepath.Join(dir, "templates", "*.yaml"))
	var out []*unstructured.Unstructured
	for _, f := range files {
		tpl, err := template.New(filepath.Base(f)).Funcs(funcs).Option("missingkey=error").ParseFiles(f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := tpl.Execute(&buf, map[string]any{"Values": values}); err != nil {
			t.Fatalf("rendering %s: %v", f, err)
		}
		for _, doc := range strings.Split(buf.String(), "\n---\n") {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
				t.Fatalf("%s: %v\n%s", f, err, doc)
			}
			if len(m) > 0 {
				out = append(out, &unstructured.Unstructured{Object: m})
			}
		}
	}
	return out
}

// TestHelmChartApplyServerSideDryRun: the chart, rendered with its defaults, holds the
// same kinds of objects as deploy/base and passes a server-side dry run.
func TestHelmChartApplyServerSideDryRun(t *testing.T) {
	objs := chart(t)
	count := func(objs []*unstructured.Unstructured) map[string]int {
		m := map[string]int{}
		for _, o := range objs {
			m[o.GetKind()]++
		}
		return m
	}
	if got, want := count(objs), count(manifests(t)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("chart objects %v, kustomize base %v", got, want)
	}
	c := kubeapi.Start(t)
	apply(t, c.Config, objs, true)
}
