package hostprocess_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

// sweepErr sweeps win-1 once over r, closes the transport, and returns the error.
func sweepErr(t *testing.T, r *hostprocess.Run) error {
	t.Helper()
	tr := dial(t, r, "win-1")
	_, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"host.json"}})
	if cerr := tr.Close(); cerr != nil {
		t.Errorf("close: %v", cerr)
	}
	if err == nil {
		t.Fatal("the sweep succeeded; want a failure")
	}
	var te *transport.Error
	if !errors.As(err, &te) || te.Kind != transport.HostProcess || te.Addr != "node/win-1" {
		t.Errorf("error %v is not a transport error naming the node", err)
	}
	return err
}

func wantIn(t *testing.T, err error, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

func TestFaultImagePull(t *testing.T) {
	w := newWorld(t)
	f := &fakenode.KubeletFaults{}
	f.Set(fakenode.KubeletFaultSet{ImagePull: true})
	w.kubelet(t, "healthy-containerd-overlay", "win-1", f)
	err := sweepErr(t, w.run(t, hostprocess.Options{Image: "registry.example/missing:v1"}))
	wantIn(t, err, "ImagePullBackOff", `Back-off pulling image "registry.example/missing:v1"`, "--hostprocess-image")
	w.assertNoPods(t)
}

// TestFaultNeverStarts: a pod the kubelet never starts is reported with its state once the
// start timeout (the thing under test, kept short) passes.
func TestFaultNeverStarts(t *testing.T) {
	w := newWorld(t)
	f := &fakenode.KubeletFaults{}
	f.Set(fakenode.KubeletFaultSet{NeverStart: true})
	w.kubelet(t, "healthy-containerd-overlay", "win-1", f)
	err := sweepErr(t, w.run(t, hostprocess.Options{StartTimeout: 2 * time.Second}))
	wantIn(t, err, "not running after 2s", "phase Pending", "ContainerCreating")
	w.assertNoPods(t)
}

func TestFaultPodSecurity(t *testing.T) {
	w := newWorld(t)
	w.kubelet(t, "healthy-containerd-overlay", "win-1", nil)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "baseline",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}
	if _, err := w.cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := sweepErr(t, w.run(t, hostprocess.Options{Namespace: "baseline"}))
	wantIn(t, err, "violates PodSecurity", "hostProcess", "pod-security.kubernetes.io/enforce=privileged")
	w.assertNoPods(t)
}

// TestFaultExecForbidden: a user RBAC lets manage pods but not exec into them gets the
// API server's Forbidden, with what to grant, and the pod is removed.
func TestFaultExecForbidden(t *testing.T) {
	w := newWorld(t)
	w.kubelet(t, "healthy-containerd-overlay", "win-1", nil)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pods-no-exec", Namespace: "default"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"},
			Verbs: []string{"create", "get", "list", "watch", "delete"}}}}
	if _, err := w.cs.RbacV1().Roles("default").Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "pods-no-exec", Namespace: "default"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pods-no-exec"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "sre"}}}
	if _, err := w.cs.RbacV1().RoleBindings("default").Create(t.Context(), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllowed(t, w.cs, "sre", "default", "")
	cfg, err := w.c.UserConfig("sre")
	if err != nil {
		t.Fatal(err)
	}
	err = sweepErr(t, w.run(t, hostprocess.Options{Client: kubernetes.NewForConfigOrDie(cfg), Config: cfg}))
	wantIn(t, err, "forbidden", "pods/exec", "docs/rbac.yaml")
	w.assertNoPods(t)
}

// TestFaultNodeGoneMidSweep: the kubelet goes away after the first frame; the error says
// the stream ended early, and the pod is still removed (through the API server).
func TestFaultNodeGoneMidSweep(t *testing.T) {
	w := newWorld(t)
	f := &fakenode.KubeletFaults{}
	f.Set(fakenode.KubeletFaultSet{GoneMidExec: true})
	k, _ := w.kubelet(t, "healthy-containerd-overlay", "win-1", f)
	r := w.run(t, hostprocess.Options{})
	tr := dial(t, r, "win-1")
	files, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"host.json", "services.json", "disk.json"}})
	if cerr := tr.Close(); cerr != nil {
		t.Errorf("close: %v", cerr)
	}
	if !k.Gone() {
		t.Fatal("the kubelet fault did not fire")
	}
	// A sweep cut short keeps the frames that arrived and marks the rest as not arrived.
	if err == nil && files["services.json.err"] == nil {
		t.Fatalf("a sweep cut mid-way reported neither an error nor missing files: %v", keys(files))
	}
	if err != nil {
		wantIn(t, err, "node/win-1")
	}
	w.assertNoPods(t)
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
