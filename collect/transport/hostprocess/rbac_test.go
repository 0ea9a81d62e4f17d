package hostprocess_test

import (
	"os"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
)

// hostprocessRole is the wintroubleshoot-hostprocess Role of docs/rbac.yaml.
func hostprocessRole(t *testing.T) *rbacv1.Role {
	t.Helper()
	b, err := os.ReadFile("../../../docs/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var r rbacv1.Role
		if err := yaml.Unmarshal([]byte(doc), &r); err == nil && r.Kind == "Role" && r.Name == "wintroubleshoot-hostprocess" {
			return &r
		}
	}
	t.Fatal("docs/rbac.yaml has no Role wintroubleshoot-hostprocess")
	return nil
}

// TestDocsRBACIsEnough: a user with only docs/rbac.yaml's hostprocess Role sweeps a node
// and leaves no pod.
func TestDocsRBACIsEnough(t *testing.T) {
	w := newWorld(t)
	w.kubelet(t, "healthy-containerd-overlay", "win-1", nil)
	role := hostprocessRole(t)
	if _, err := w.cs.RbacV1().Roles(role.Namespace).Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: role.Namespace},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "sre"}}}
	if _, err := w.cs.RbacV1().RoleBindings(role.Namespace).Create(t.Context(), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllowed(t, w.cs, "sre", role.Namespace, "exec")
	cfg, err := w.c.UserConfig("sre")
	if err != nil {
		t.Fatal(err)
	}
	r := w.run(t, hostprocess.Options{Client: kubernetes.NewForConfigOrDie(cfg), Config: cfg, Namespace: role.Namespace})
	tr := dial(t, r, "win-1")
	if _, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"host.json"}}); err != nil {
		t.Fatalf("sweep with docs/rbac.yaml's Role: %v", err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	w.assertNoPods(t)
}

// waitAllowed polls until the RBAC authorizer's cache, which follows writes shortly after,
// lets user create pods (subresource "") or pods/<subresource> in ns.
func waitAllowed(t *testing.T, cs kubernetes.Interface, user, ns, subresource string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods", Subresource: subresource, Namespace: ns}}}
		got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), sar, metav1.CreateOptions{})
		if err == nil && got.Status.Allowed {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("RBAC never allowed %s to create pods/%s in %s", user, subresource, ns)
}
