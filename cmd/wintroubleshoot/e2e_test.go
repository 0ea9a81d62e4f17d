package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// seed puts a scenario's cluster objects into a real API server, as the cluster they
// were recorded from had them.
func seed(t *testing.T, cs *kubernetes.Clientset, fsys fs.FS) map[string]string {
	t.Helper()
	ctx := context.Background()
	read := func(p string) []byte {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	clean := func(m *metav1.ObjectMeta) {
		m.ResourceVersion, m.UID, m.ManagedFields, m.CreationTimestamp, m.Generation = "", "", nil, metav1.Time{}, 0
	}
	nodes, err := decode.Nodes(evidence.PathNodes, read(evidence.PathNodes))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		clean(&n.ObjectMeta)
		created, err := cs.CoreV1().Nodes().Create(ctx, &n, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("node %s: %v", n.Name, err)
		}
		created.Status = n.Status
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		renewLease(t, cs, n.Name)
	}
	svcs, err := decode.Services(evidence.PathServices, read(evidence.PathServices))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range svcs {
		if s.Namespace == "default" && s.Name == "kubernetes" {
			continue // the API server made its own
		}
		clean(&s.ObjectMeta)
		ensureNamespace(t, cs, s.Namespace)
		if _, err := cs.CoreV1().Services(s.Namespace).Create(ctx, &s, metav1.CreateOptions{}); err != nil {
			t.Fatalf("service %s/%s: %v", s.Namespace, s.Name, err)
		}
	}
	pods, err := decode.Pods(evidence.PathPods, read(evidence.PathPods))
	if err != nil {
		t.Fatal(err)
	}
	uids := map[string]string{} // recorded pod UID -> the UID the API server gave it
	for _, p := range pods {
		old := string(p.UID)
		clean(&p.ObjectMeta)
		ensureNamespace(t, cs, p.Namespace)
		created, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, &p, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("pod %s/%s: %v", p.Namespace, p.Name, err)
		}
		uids[old] = string(created.UID)
		created.Status = p.Status
		if _, err := cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := fs.ReadFile(fsys, evidence.PathDaemonSets); err == nil {
		var list struct{ Items []appsv1.DaemonSet }
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		for _, d := range list.Items {
			clean(&d.ObjectMeta)
			ensureNamespace(t, cs, d.Namespace)
			if _, err := cs.AppsV1().DaemonSets(d.Namespace).Create(ctx, &d, metav1.CreateOptions{}); err != nil {
				t.Fatalf("daemonset %s: %v", d.Name, err)
			}
		}
	}
	return uids
}

// withPodUIDs is the scenario as the node would show it to this API server: containers
// name their pods by UID, and the API server gave the pods new ones.
func withPodUIDs(t *testing.T, fsys fs.FS, uids map[string]string) fs.FS {
	m := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if strings.HasSuffix(p, "/"+evidence.FileContainers) {
			for old, now := range uids {
				b = []byte(strings.ReplaceAll(string(b), old, now))
			}
		}
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// renewLease writes the node's Lease in kube-node-lease as its kubelet does
// (component-helpers' lease controller: holder the node, renewTime the kubelet's clock,
// which is this machine's here), so CLOCK-SKEW judges the live cluster as the recorded one.
func renewLease(t *testing.T, cs *kubernetes.Clientset, node string) {
	t.Helper()
	ensureNamespace(t, cs, "kube-node-lease")
	now := metav1.NewMicroTime(time.Now())
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: node, Namespace: "kube-node-lease"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &node, LeaseDurationSeconds: ptr.To[int32](40), RenewTime: &now}}
	if _, err := cs.CoordinationV1().Leases("kube-node-lease").Create(context.Background(), l, metav1.CreateOptions{}); err != nil {
		t.Fatalf("lease of %s: %v", node, err)
	}
}

func ensureNamespace(t *testing.T, cs *kubernetes.Clientset, ns string) {
	_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
}

type verdict struct{ Node, Probe, Status string }

func verdicts(t *testing.T, out string) []string {
	t.Helper()
	var doc struct{ Findings []verdict }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	var vs []string
	for _, v := range doc.Findings {
		vs = append(vs, fmt.Sprintf("%s %s %s", v.Node, v.Probe, v.Status))
	}
	sort.Strings(vs)
	return vs
}

// TestReportAgainstAPIServerAndFakeNodes: `wintroubleshoot --report` against a real API
// server holding a seed scenario's objects, and the scenario's node served by a fake
// node over WinRM HTTPS, judges as `analyze` judges the recorded scenario.
func TestReportAgainstAPIServerAndFakeNodes(t *testing.T) {
	for _, name := range []string{"healthy-sdn-l2bridge-docker", "routes-missing", "podcidr-empty", "kube-proxy-cbr0"} {
		t.Run(name, func(t *testing.T) {
			cl := kubeapi.Start(t)
			cs, err := kubernetes.NewForConfig(cl.Config)
			if err != nil {
				t.Fatal(err)
			}
			fsys, meta, _, err := scenarios.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			served := withPodUIDs(t, fsys, seed(t, cs, fsys))
			const pw = "e2e'pass\"word$`"
			t.Setenv("WTS_PASSWORD", pw)
			args := []string{"--report", "-o", "json", "--kubeconfig", cl.Kubeconfig}
			for _, node := range meta.Nodes {
				srv, err := fakenode.StartWinRM(context.Background(), fakenode.NewNode(fakenode.NodeOptions{Scenario: served, Node: node}),
					fakenode.WinRMOptions{User: "Administrator", Password: pw, TLS: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { srv.Close() })
				ca := filepath.Join(t.TempDir(), "ca.pem")
				os.WriteFile(ca, srv.CertPEM(), 0o600)
				_, port, _ := strings.Cut(srv.Addr(), ":")
				p, _ := strconv.Atoi(port)
				args = append(args, "--node", fmt.Sprintf("%s=winrm-https://127.0.0.1:%d", node, p), "--winrm-ca-file", ca)
			}
			code, live, errOut := run(t, args...)
			if code != 0 && code != 1 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Contains(live+errOut, pw) {
				t.Fatal("the password appears in the output")
			}
			_, recorded, _ := run(t, "analyze", scenarioDir(t, name), "-o", "json")
			got, want := verdicts(t, live), verdicts(t, recorded)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("live:\n  %s\nrecorded:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}
