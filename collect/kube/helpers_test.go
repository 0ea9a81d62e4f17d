package kube_test

import (
	"os"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

// flags are kubectl's --kubeconfig and --context, as the command line sets them.
func flags(kubeconfig, context string) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(false)
	f.KubeConfig = &kubeconfig
	if context != "" {
		f.Context = &context
	}
	return f
}

func newClient(t *testing.T, kubeconfig string) *kube.Client {
	t.Helper()
	c, err := kube.New(flags(kubeconfig, ""))
	if err != nil {
		t.Fatalf("kube.New: %v", err)
	}
	return c
}

// userKubeconfig writes a kubeconfig for a fresh certificate user.
func userKubeconfig(t *testing.T, c *kubeapi.Cluster, user string) string {
	t.Helper()
	cfg, err := c.UserConfig(user)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/" + user + ".kubeconfig"
	if err := kubeapi.WriteKubeconfig(path, user, cfg); err != nil {
		t.Fatal(err)
	}
	return path
}

func admin(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// mkNode creates a node and then its status (a subresource Create ignores).
func mkNode(t *testing.T, cs kubernetes.Interface, n *corev1.Node) *corev1.Node {
	t.Helper()
	status := n.Status
	out, err := cs.CoreV1().Nodes().Create(t.Context(), n, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create node %s: %v", n.Name, err)
	}
	out.Status = status
	out, err = cs.CoreV1().Nodes().UpdateStatus(t.Context(), out, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status of node %s: %v", n.Name, err)
	}
	return out
}

func mkPod(t *testing.T, cs kubernetes.Interface, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	if len(p.Spec.Containers) == 0 {
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "mcr.microsoft.com/windows/nanoserver:ltsc2019"}}
	}
	out, err := cs.CoreV1().Pods(p.Namespace).Create(t.Context(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s/%s: %v", p.Namespace, p.Name, err)
	}
	return out
}

func mkNamespace(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// rbacDocs reads docs/rbac.yaml; withSecretRole also uncomments the password Secret Role.
func rbacDocs(t *testing.T, withSecretRole bool) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if withSecretRole {
		_, rest, ok1 := strings.Cut(text, "# --- BEGIN password-secret Role ---\n")
		block, _, ok2 := strings.Cut(rest, "# --- END password-secret Role ---")
		if !ok1 || !ok2 {
			t.Fatal("docs/rbac.yaml lost its password-secret Role markers")
		}
		var lines []string
		for _, l := range strings.Split(block, "\n") {
			lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(l, "#"), " "))
		}
		text = strings.Join(lines, "\n")
	}
	return strings.Split(text, "\n---\n")
}

// applyRBAC creates the roles and bindings of docs/rbac.yaml, bound to user; namespace
// replaces the placeholder namespace of the Secret Role. kinds limits what is applied.
func applyRBAC(t *testing.T, cs kubernetes.Interface, docs []string, user, namespace string, names ...string) {
	t.Helper()
	want := func(name string) bool {
		if len(names) == 0 {
			return true
		}
		for _, n := range names {
			if n == name {
				return true
			}
		}
		return false
	}
	ctx := t.Context()
	for _, doc := range docs {
		var head struct {
			Kind     string            `json:"kind"`
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("docs/rbac.yaml: %v\n%s", err, doc)
		}
		if head.Kind == "" || !want(head.Metadata.Name) {
			continue
		}
		ns := head.Metadata.Namespace
		if ns == "my-user-cluster" {
			ns = namespace
		}
		var err error
		switch head.Kind {
		case "ClusterRole":
			var o rbacv1.ClusterRole
			mustYAML(t, doc, &o)
			_, err = cs.RbacV1().ClusterRoles().Create(ctx, &o, metav1.CreateOptions{})
		case "Role":
			var o rbacv1.Role
			mustYAML(t, doc, &o)
			o.Namespace = ns
			_, err = cs.RbacV1().Roles(ns).Create(ctx, &o, metav1.CreateOptions{})
		case "ClusterRoleBinding":
			var o rbacv1.ClusterRoleBinding
			mustYAML(t, doc, &o)
			o.Name += "-" + user
			o.Subjects[0].Name = user
			_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &o, metav1.CreateOptions{})
		case "RoleBinding":
			var o rbacv1.RoleBinding
			mustYAML(t, doc, &o)
			o.Name += "-" + user
			o.Namespace = ns
			o.Subjects[0].Name = user
			_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, &o, metav1.CreateOptions{})
		default:
			t.Fatalf("docs/rbac.yaml: unexpected kind %s", head.Kind)
		}
		if err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("apply %s %s: %v", head.Kind, head.Metadata.Name, err)
		}
	}
}

// waitAllowed polls until the authorizer, whose cache follows RBAC writes shortly after,
// lets user do verb on resource (and on the object named name, if given).
func waitAllowed(t *testing.T, cs kubernetes.Interface, user, verb, group, resource, ns string, name ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: verb, Group: group, Resource: resource, Namespace: ns},
		}}
		if len(name) > 0 {
			sar.Spec.ResourceAttributes.Name = name[0]
		}
		out, err := cs.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), sar, metav1.CreateOptions{})
		if err == nil && out.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("user %s still may not %s %s after 10s (err %v)", user, verb, resource, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func mustYAML(t *testing.T, doc string, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
		t.Fatalf("docs/rbac.yaml: %v\n%s", err, doc)
	}
}
