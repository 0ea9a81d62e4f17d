package kube_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

// TestRBAC runs the tool as users with no, partial and exactly docs/rbac.yaml's
// permissions against a real apiserver's RBAC authorizer.
func TestRBAC(t *testing.T) {
	t.Parallel()
	c := kubeapi.Start(t)
	cs := admin(t, c.Config)
	seedCluster(t, cs)

	t.Run("no grants: names verb, resource and docs/rbac.yaml", func(t *testing.T) {
		_, err := newClient(t, c.RestrictedKubeconfig).Collect(t.Context(), evidence.NewTree())
		if err == nil {
			t.Fatal("Collect as a user without RBAC succeeded")
		}
		t.Log(err)
		if !kube.IsForbidden(err) {
			t.Errorf("not classified forbidden: %v", err)
		}
		for _, want := range []string{"forbidden: cannot list nodes at cluster scope", "kubectl apply -f docs/rbac.yaml", `User "restricted"`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
	})

	t.Run("expired credentials: 401", func(t *testing.T) {
		bad := *c.Config
		bad.BearerToken = "expired-token"
		path := filepath.Join(t.TempDir(), "config")
		if err := kubeapi.WriteKubeconfig(path, "admin", &bad); err != nil {
			t.Fatal(err)
		}
		_, err := newClient(t, path).Collect(t.Context(), evidence.NewTree())
		var ae *kube.APIError
		t.Log(err)
		if !errors.As(err, &ae) || ae.Kind != kube.ErrUnauthorized {
			t.Fatalf("want ErrUnauthorized, got %v", err)
		}
		for _, want := range []string{"401 Unauthorized", "expired or invalid", "kubectl --context wts-test auth whoami"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
	})

	t.Run("partial: events and daemonsets denied are skipped", func(t *testing.T) {
		const user = "partial"
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "partial"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes", "services", "pods"}, Verbs: []string{"get", "list"}}}}
		bind := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "partial"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "partial"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}}
		if _, err := cs.RbacV1().ClusterRoles().Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(t.Context(), bind, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitAllowed(t, cs, user, "list", "", "pods", "")
		tree := evidence.NewTree()
		d, err := newClient(t, userKubeconfig(t, c, user)).Collect(t.Context(), tree)
		if err != nil {
			t.Fatalf("Collect with partial permissions: %v", err)
		}
		if len(d.Windows) != 2 || d.KubeDNS != "10.32.0.10" || d.ServiceCIDR == "" {
			t.Errorf("discovery = %+v", d)
		}
		skipped := strings.Join(d.Skipped, "\n")
		t.Log(skipped)
		for _, want := range []string{"cannot list events at cluster scope", "cannot list daemonsets in namespace kube-system",
			"cannot list endpointslices at cluster scope",
			"cannot get configmaps kube-proxy in namespace kube-system"} {
			if !strings.Contains(skipped, want) {
				t.Errorf("Skipped lacks %q:\n%s", want, skipped)
			}
		}
		ev := tree.Evidence()
		if ev.Has(evidence.PathEvents) || !ev.Has(evidence.PathPods) {
			t.Error("events.json written though denied, or pods.json missing")
		}
		if why := ev.CollectError(evidence.PathEvents); !strings.Contains(why, "forbidden: cannot list events") {
			t.Errorf("events.json.err = %q", why)
		}
	})

	t.Run("docs/rbac.yaml read roles are enough to collect", func(t *testing.T) {
		const user = "reader"
		applyRBAC(t, cs, rbacDocs(t, false), user, "", "wintroubleshoot-read")
		waitAllowed(t, cs, user, "list", "apps", "daemonsets", "kube-system")
		client := newClient(t, userKubeconfig(t, c, user))
		tree := evidence.NewTree()
		d, err := client.Collect(t.Context(), tree)
		if err != nil {
			t.Fatalf("Collect with docs/rbac.yaml: %v", err)
		}
		if !tree.Evidence().Has(evidence.PathEndpointSlices) {
			t.Error("endpointslices.json not written with docs/rbac.yaml's read role")
		}
		if len(d.Skipped) != 0 || d.ClusterCIDR != "10.200.0.0/16" {
			t.Errorf("skipped %q, cluster CIDR %q", d.Skipped, d.ClusterCIDR)
		}
		// Reading alone must not allow fixes.
		err = client.Cordon(t.Context(), "win-1")
		if !kube.IsForbidden(err) || !strings.Contains(err.Error(), "cannot patch nodes win-1 at cluster scope") {
			t.Errorf("Cordon as reader: %v", err)
		}
	})

	t.Run("docs/rbac.yaml fix role allows the fixes", func(t *testing.T) {
		const user = "fixer"
		applyRBAC(t, cs, rbacDocs(t, false), user, "")
		waitAllowed(t, cs, user, "create", "", "pods/eviction", "default")
		client := newClient(t, userKubeconfig(t, c, user))
		ctx := t.Context()
		if err := client.Taint(ctx, "win-1", "os", "windows", "NoSchedule"); err != nil {
			t.Errorf("Taint: %v", err)
		}
		if err := client.PatchPodCIDR(ctx, "win-2", "10.200.3.0/24"); err != nil {
			t.Errorf("PatchPodCIDR: %v", err)
		}
		// kubectl drain reads the DaemonSet of each DaemonSet pod before leaving it alone,
		// in whatever namespace it runs (monitoring agents rarely live in kube-system).
		ds := mkDaemonSet(t, cs, "win-agent", map[string]string{"kubernetes.io/os": "windows"})
		ds.ObjectMeta = metav1.ObjectMeta{Name: ds.Name, Namespace: "default"}
		ds, err := cs.AppsV1().DaemonSets("default").Create(ctx, ds, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "win-agent-x", Namespace: "default",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{NodeName: "win-1"}})
		res, err := client.Drain(ctx, "win-1", kube.DrainOptions{Force: true, GracePeriodSeconds: ptr.To[int64](0)})
		if err != nil || strings.Join(res.Evicted, ",") != "default/iis" || len(res.Plan.Notes) != 2 {
			t.Errorf("Drain: %+v, %v", res, err)
		}
		if err := client.DeleteNode(ctx, "win-2"); err != nil {
			t.Errorf("DeleteNode: %v", err)
		}
		_, err = client.Secret(ctx, "kube-system", "any", "")
		if !kube.IsForbidden(err) || !strings.Contains(err.Error(), "separate Role commented in docs/rbac.yaml") {
			t.Errorf("Secret without the Secret Role: %v", err)
		}
	})

	t.Run("docs/rbac.yaml password Secret role reads that Secret only", func(t *testing.T) {
		const user, ns = "anthos-admin", "my-user-cluster-1"
		mkNamespace(t, cs, ns)
		for name, pw := range map[string]string{"windows-node-password": "s3cret", "other": "x"} {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string][]byte{"password": []byte(pw)}}
			if _, err := cs.CoreV1().Secrets(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		applyRBAC(t, cs, rbacDocs(t, true), user, ns, "wintroubleshoot-node-password")
		waitAllowed(t, cs, user, "get", "", "secrets", ns, "windows-node-password")
		client := newClient(t, userKubeconfig(t, c, user))
		pw, err := client.Secret(t.Context(), ns, "windows-node-password", "")
		if err != nil || string(pw) != "s3cret" {
			t.Errorf("Secret = %q, %v", pw, err)
		}
		if _, err := client.Secret(t.Context(), ns, "other", ""); !kube.IsForbidden(err) {
			t.Errorf("another Secret in the namespace was readable: %v", err)
		}
	})
}
