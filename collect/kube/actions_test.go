package kube_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

func TestActions(t *testing.T) {
	t.Parallel()
	c := kubeapi.Start(t)
	cs := admin(t, c.Config)
	client := newClient(t, c.Kubeconfig)
	for _, name := range []string{"win-a", "win-drain", "win-bare", "win-pdb", "win-gone"} {
		mkNode(t, cs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/os": "windows"}}})
	}
	getNode := func(t *testing.T, name string) *corev1.Node {
		n, err := cs.CoreV1().Nodes().Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("PatchPodCIDR sets an empty podCIDR once", func(t *testing.T) {
		ctx := t.Context()
		if err := client.PatchPodCIDR(ctx, "win-a", "10.200.5.1/24"); err == nil || !strings.Contains(err.Error(), "did you mean 10.200.5.0/24") {
			t.Errorf("host bits: %v", err)
		}
		if err := client.PatchPodCIDR(ctx, "win-a", "10.200.5.0/24"); err != nil {
			t.Fatal(err)
		}
		n := getNode(t, "win-a")
		if n.Spec.PodCIDR != "10.200.5.0/24" || len(n.Spec.PodCIDRs) != 1 || n.Spec.PodCIDRs[0] != "10.200.5.0/24" {
			t.Errorf("spec = %+v", n.Spec)
		}
		err := client.PatchPodCIDR(ctx, "win-a", "10.200.6.0/24")
		if err == nil || !strings.Contains(err.Error(), `already has podCIDR "10.200.5.0/24"`) {
			t.Errorf("second patch: %v", err)
		}
		if err := client.PatchPodCIDR(ctx, "nope", "10.200.6.0/24"); !kube.IsNotFound(err) {
			t.Errorf("missing node: %v", err)
		}
	})

	t.Run("Cordon and Taint are idempotent", func(t *testing.T) {
		ctx := t.Context()
		for range 2 {
			if err := client.Cordon(ctx, "win-a"); err != nil {
				t.Fatal(err)
			}
			if err := client.Taint(ctx, "win-a", "os", "windows", "NoSchedule"); err != nil {
				t.Fatal(err)
			}
		}
		n := getNode(t, "win-a")
		count := 0
		for _, tn := range n.Spec.Taints {
			if tn.Key == "os" {
				count++
			}
		}
		if !n.Spec.Unschedulable || count != 1 {
			t.Errorf("unschedulable %v, %d os taints: %v", n.Spec.Unschedulable, count, n.Spec.Taints)
		}
		err := client.Taint(ctx, "win-a", "os", "linux", "NoSchedule")
		if err == nil || !strings.Contains(err.Error(), "already has the taint os=windows:NoSchedule") {
			t.Errorf("conflicting taint: %v", err)
		}
		if err := client.Taint(ctx, "win-a", "os", "windows", "NoWay"); err == nil {
			t.Error("bad effect accepted")
		}
	})

	t.Run("Drain evicts all but DaemonSet and mirror pods", func(t *testing.T) {
		ctx := t.Context()
		ds := mkDaemonSet(t, cs, "ds-win", map[string]string{"kubernetes.io/os": "windows"})
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", OwnerReferences: replicaSet("web")}, Spec: corev1.PodSpec{NodeName: "win-drain"}})
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "batch", OwnerReferences: replicaSet("batch")}, Spec: corev1.PodSpec{NodeName: "win-drain"}})
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ds-win-x", Namespace: "kube-system",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{NodeName: "win-drain"}})
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "static-win-drain", Namespace: "kube-system",
			Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "hash"}}, Spec: corev1.PodSpec{NodeName: "win-drain"}})
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", OwnerReferences: replicaSet("elsewhere")}, Spec: corev1.PodSpec{NodeName: "win-a"}})

		plan, err := client.PlanDrain(ctx, "win-drain", kube.DrainOptions{})
		if err != nil || strings.Join(plan.Evict, ",") != "default/batch,default/web" || len(plan.Blocked) != 0 ||
			strings.Join(plan.Notes, ";") != "ignoring DaemonSet-managed Pods: kube-system/ds-win-x" {
			t.Fatalf("plan %+v, %v", plan, err)
		}
		if getNode(t, "win-drain").Spec.Unschedulable {
			t.Fatal("planning a drain cordoned the node")
		}
		res, err := client.Drain(ctx, "win-drain", kube.DrainOptions{GracePeriodSeconds: ptr.To[int64](0), Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Evicted, ","); got != "default/batch,default/web" || len(res.Pending) != 0 {
			t.Errorf("evicted %s, pending %v", got, res.Pending)
		}
		for _, n := range []string{"web", "batch"} {
			if _, err := cs.CoreV1().Pods("default").Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("pod default/%s still there: %v", n, err)
			}
		}
		for _, n := range []string{"ds-win-x", "static-win-drain"} {
			if _, err := cs.CoreV1().Pods("kube-system").Get(ctx, n, metav1.GetOptions{}); err != nil {
				t.Errorf("pod kube-system/%s was removed: %v", n, err)
			}
		}
		if _, err := cs.CoreV1().Pods("default").Get(ctx, "elsewhere", metav1.GetOptions{}); err != nil {
			t.Errorf("a pod on another node was evicted: %v", err)
		}
		if !getNode(t, "win-drain").Spec.Unschedulable {
			t.Error("drained node not cordoned")
		}
	})

	t.Run("Drain refuses to lose pods unless told to", func(t *testing.T) {
		ctx := t.Context()
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bare"}, Spec: corev1.PodSpec{NodeName: "win-bare"}})
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "scratch", OwnerReferences: replicaSet("scratch")},
			Spec: corev1.PodSpec{NodeName: "win-bare", Volumes: []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}})
		plan, err := client.PlanDrain(ctx, "win-bare", kube.DrainOptions{})
		blocked := strings.Join(plan.Blocked, "\n")
		if err != nil || len(plan.Evict) != 0 || !strings.Contains(blocked, "declare no controller (use --force to override): default/bare") ||
			!strings.Contains(blocked, "local storage (use --delete-emptydir-data to override): default/scratch") {
			t.Fatalf("plan %+v, %v", plan, err)
		}
		_, err = client.Drain(ctx, "win-bare", kube.DrainOptions{})
		if !errors.Is(err, kube.ErrDrainBlocked) || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("Drain with pods it would lose: %v", err)
		}
		if getNode(t, "win-bare").Spec.Unschedulable {
			t.Error("a refused drain cordoned the node")
		}
		for _, n := range []string{"bare", "scratch"} {
			if _, err := cs.CoreV1().Pods("default").Get(ctx, n, metav1.GetOptions{}); err != nil {
				t.Errorf("a refused drain removed default/%s: %v", n, err)
			}
		}
		o := kube.DrainOptions{Force: true, DeleteEmptyDirData: true, GracePeriodSeconds: ptr.To[int64](0), Timeout: 20 * time.Second}
		if plan, err := client.PlanDrain(ctx, "win-bare", o); err != nil || strings.Join(plan.Evict, ",") != "default/bare,default/scratch" || len(plan.Blocked) != 0 {
			t.Fatalf("plan with --force --delete-emptydir-data: %+v, %v", plan, err)
		}
		res, err := client.Drain(ctx, "win-bare", o)
		if err != nil || strings.Join(res.Evicted, ",") != "default/bare,default/scratch" {
			t.Fatalf("Drain --force --delete-emptydir-data: %+v, %v", res, err)
		}
		if got := strings.Join(o.Commands("win-bare"), "\n"); got != "kubectl cordon win-bare\nkubectl drain win-bare --ignore-daemonsets --force --delete-emptydir-data --grace-period=0 --timeout=20s" {
			t.Errorf("commands:\n%s", got)
		}
	})

	t.Run("Drain reports pods still terminating without a kubelet", func(t *testing.T) {
		mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "slow", OwnerReferences: replicaSet("slow")}, Spec: corev1.PodSpec{NodeName: "win-gone"}})
		res, err := client.Drain(t.Context(), "win-gone", kube.DrainOptions{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(res.Evicted, ",") != "default/slow" || strings.Join(res.Pending, ",") != "default/slow" {
			t.Errorf("evicted %v pending %v: with no kubelet the pod stays Terminating", res.Evicted, res.Pending)
		}
	})

	t.Run("Drain honours ctx while a PodDisruptionBudget refuses", func(t *testing.T) {
		labels := map[string]string{"app": "guarded"}
		p := mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "guarded", Labels: labels, OwnerReferences: replicaSet("guarded")},
			Spec: corev1.PodSpec{NodeName: "win-pdb"}})
		// A Pending pod may be evicted whatever the budget says: make it Running and Ready.
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
		if _, err := cs.CoreV1().Pods("default").UpdateStatus(t.Context(), p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels}}}
		pdb, err := cs.PolicyV1().PodDisruptionBudgets("default").Create(t.Context(), pdb, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// No disruption controller runs here: write the status it would, or the apiserver
		// holds each eviction ~100s waiting for the budget to be processed.
		pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0,
			CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
		if _, err := cs.PolicyV1().PodDisruptionBudgets("default").UpdateStatus(t.Context(), pdb, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		start := time.Now()
		res, err := client.Drain(ctx, "win-pdb", kube.DrainOptions{RetryInterval: 100 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), "disruption budget") || !strings.Contains(err.Error(), "deadline exceeded") ||
			!strings.Contains(err.Error(), "default/guarded") {
			t.Errorf("Drain blocked by a PDB: %v", err)
		}
		if len(res.Evicted) != 0 {
			t.Errorf("evicted %v despite the PDB", res.Evicted)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Drain ignored its context for %v", d)
		}
	})

	t.Run("DeleteNode", func(t *testing.T) {
		if err := client.DeleteNode(t.Context(), "win-gone"); err != nil {
			t.Fatal(err)
		}
		if err := client.DeleteNode(t.Context(), "win-gone"); !kube.IsNotFound(err) {
			t.Errorf("second delete: %v", err)
		}
	})

	t.Run("Secret picks the key and never shows values", func(t *testing.T) {
		ctx := t.Context()
		for name, data := range map[string]map[string]string{
			"windows-node-password": {"password": "s3cret", "username": "Administrator"},
			"single":                {"pw": "only-one"},
			"two":                   {"a": "value-a", "b": "value-b"},
		} {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, StringData: data}
			if _, err := cs.CoreV1().Secrets("default").Create(ctx, s, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct{ ns, name, key, want string }{
			{"default", "windows-node-password", "", "s3cret"},
			{"", "windows-node-password", "username", "Administrator"}, // "" is -n / the context's namespace
			{"default", "single", "", "only-one"},
		} {
			got, err := client.Secret(ctx, tc.ns, tc.name, tc.key)
			if err != nil || string(got) != tc.want {
				t.Errorf("Secret(%q, %q, %q) = %q, %v", tc.ns, tc.name, tc.key, got, err)
			}
		}
		_, err := client.Secret(ctx, "default", "two", "")
		if err == nil || !strings.Contains(err.Error(), `no key "password"; keys present: a, b`) || strings.Contains(err.Error(), "value-") {
			t.Errorf("missing key: %v", err)
		}
		if _, err := client.Secret(ctx, "default", "absent", ""); !kube.IsNotFound(err) {
			t.Errorf("absent Secret: %v", err)
		}
	})
}

func TestParseSecretRef(t *testing.T) {
	for ref, want := range map[string]string{
		"user-cluster-1/windows-node-password":    "user-cluster-1|windows-node-password|",
		"user-cluster-1/windows-node-password:pw": "user-cluster-1|windows-node-password|pw",
		"windows-node-password":                   "|windows-node-password|",
	} {
		ns, name, key, err := kube.ParseSecretRef(ref)
		if got := ns + "|" + name + "|" + key; err != nil || got != want {
			t.Errorf("ParseSecretRef(%q) = %s, %v; want %s", ref, got, err, want)
		}
	}
	for _, bad := range []string{"", "a/b/c", "ns/", ":key"} {
		if _, _, _, err := kube.ParseSecretRef(bad); err == nil {
			t.Errorf("ParseSecretRef(%q) accepted", bad)
		}
	}
}

// replicaSet is the owner reference of a pod a ReplicaSet manages (none runs here: the
// reference alone is what kubectl drain looks at).
func replicaSet(name string) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name + "-rs",
		UID: types.UID("uid-" + name), Controller: ptr.To(true)}}
}
