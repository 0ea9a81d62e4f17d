package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
)

// The examples run in a world a reader of the help would have: a cluster (the real test
// API server) with one broken Windows node win-1 (the routes-missing scenario), that node
// reachable over WinRM HTTPS and SSH (fake nodes on loopback), $WTS_PASSWORD set, and a
// working folder holding the evidence folders, bundles and rule files examples name.
const (
	exampleScenario = "routes-missing"
	examplePassword = "example-pass"
	// examplePeerScenario is win-2, the healthy node of win-1's pool, for compare.
	examplePeerScenario = "healthy-sdn-l2bridge-docker"
)

// exampleCluster is the API server shared by every example block; nil when the test
// cluster binaries are missing, and then examples that need a cluster are skipped.
type exampleCluster struct {
	kubeconfig string
	cs         *kubernetes.Clientset
	served     fs.FS // the scenario as the node shows it to this API server (pod UIDs)
}

func startExampleCluster(t *testing.T) *exampleCluster {
	t.Helper()
	if kubeapi.BinDir() == "" {
		return nil
	}
	cl := kubeapi.Start(t)
	cs, err := kubernetes.NewForConfig(cl.Config)
	if err != nil {
		t.Fatal(err)
	}
	fsys, _, _, err := scenarios.Load(exampleScenario)
	if err != nil {
		t.Fatal(err)
	}
	served := withPodUIDs(t, fsys, seed(t, cs, fsys))
	// The Anthos example reads the node password from a Secret in an "admin cluster".
	ensureNamespace(t, cs, "user-cluster-1")
	_, err = cs.CoreV1().Secrets("user-cluster-1").Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "windows-node-password"},
		Data:       map[string][]byte{"password": []byte(examplePassword)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &exampleCluster{kubeconfig: cl.Kubeconfig, cs: cs, served: served}
}

// resetNodes puts the scenario's nodes back as recorded: an example may have cordoned,
// tainted or deleted one.
func (c *exampleCluster) resetNodes(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	b, err := fs.ReadFile(c.served, evidence.PathNodes)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := decode.Nodes(evidence.PathNodes, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		_ = c.cs.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{})
		n.ObjectMeta = metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, Annotations: n.Annotations}
		created, err := c.cs.CoreV1().Nodes().Create(ctx, &n, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("re-creating node %s: %v", n.Name, err)
		}
		created.Status = n.Status
		if _, err := c.cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// exampleWorld is one block's world: a fresh folder and fresh fake nodes, so one
// block's fixes and files never leak into the next.
type exampleWorld struct {
	dir, home string
	caFile    string
	winrm     string            // host:port of the WinRM HTTPS fake node
	peer      string            // host:port of win-2's fake node, once a live compare asked for it
	peerCA    string            // a CA file trusting both fake nodes
	addrs     map[string]string // addresses in examples -> where the fake nodes listen
	cluster   *exampleCluster
}

func newExampleWorld(t *testing.T, cl *exampleCluster) *exampleWorld {
	t.Helper()
	w := &exampleWorld{dir: t.TempDir(), cluster: cl, addrs: map[string]string{}}
	w.home = filepath.Join(w.dir, "home")
	for _, d := range []string{"case-1234", "evidence-folder"} {
		if err := os.CopyFS(filepath.Join(w.dir, d), mustSub(t, exampleScenario)); err != nil {
			t.Fatal(err)
		}
	}
	bundles := map[string]string{"snapshot.tar.gz": exampleScenario, "snap.tar.gz": exampleScenario, "before.tar.gz": exampleScenario,
		"after.tar.gz": exampleScenario, "healthy.tar.gz": examplePeerScenario}
	for b, sc := range bundles {
		if _, err := bundle.Write(context.Background(), filepath.Join(w.dir, b), bundle.FSSource(mustSub(t, sc)),
			bundle.Options{Tool: "wintroubleshoot", Version: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	// A customer's paste: the prompt, Get-Service as a table, Get-HnsNetwork as a list.
	write(t, filepath.Join(w.dir, "ticket-1234.txt"), []byte(exampleTicket))
	rules := []byte("- name: our-hostnames\n  regex: 'corp\\.example\\.com'\n")
	for _, f := range []string{"ours.yaml", "our-hostnames.yaml"} {
		write(t, filepath.Join(w.dir, f), rules)
	}
	t.Setenv("HOME", w.home)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("WTS_PASSWORD", examplePassword) // the reader exported it, as the first examples show
	t.Setenv("PAGER", "true")
	served := mustSub(t, exampleScenario)
	if cl != nil {
		cl.resetNodes(t)
		t.Setenv("KUBECONFIG", cl.kubeconfig)
		kc, err := os.ReadFile(cl.kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(w.dir, "admin.kubeconfig"), kc)
		served = cl.served
	}
	w.startNodes(t, served)
	return w
}

// startNodes serves win-1 over WinRM HTTPS (password) and SSH (password or the key in
// ~/.ssh/id_ed25519, whose host key is in ~/.ssh/known_hosts).
func (w *exampleWorld) startNodes(t *testing.T, served fs.FS) {
	t.Helper()
	ctx := context.Background()
	node := fakenode.NewNode(fakenode.NodeOptions{Scenario: served, Node: "win-1"})
	win, err := fakenode.StartWinRM(ctx, node, fakenode.WinRMOptions{User: "Administrator", Password: examplePassword, TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { win.Close() })
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	sshd, err := fakenode.StartSSH(ctx, node, fakenode.SSHOptions{User: "Administrator", Password: examplePassword,
		AuthorizedKeys: []ssh.PublicKey{sshPub}, HostKeySeed: "example-win-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sshd.Close() })
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.home, ".ssh", "id_ed25519"), pem.EncodeToMemory(block))
	write(t, filepath.Join(w.home, ".ssh", "known_hosts"),
		[]byte(knownhosts.Line([]string{knownhosts.Normalize(sshd.Addr())}, sshd.HostKey())+"\n"))
	w.caFile = filepath.Join(w.dir, "winrm-ca.pem")
	write(t, w.caFile, win.CertPEM())
	w.winrm = win.Addr()
	// The README's addresses for "nodes reached another way".
	w.addrs["10.0.0.5"] = sshd.Addr()
	w.addrs["10.0.0.6:5986"] = win.Addr()
}

// startPeer adds win-2 to the world for a live compare: a healthy node of win-1's pool
// (the same layout, the next podCIDR) in the cluster, answering over WinRM HTTPS, until
// the block ends.
func (w *exampleWorld) startPeer(t *testing.T) {
	t.Helper()
	if w.peer != "" || w.cluster == nil {
		return
	}
	addNode(t, w.cluster.cs, "win-1", "win-2", "10.200.3.0/24", "10.240.0.31")
	t.Cleanup(func() {
		_ = w.cluster.cs.CoreV1().Nodes().Delete(context.Background(), "win-2", metav1.DeleteOptions{})
	})
	served := asNode(t, mustSub(t, examplePeerScenario), "win-1", "win-2")
	srv, err := fakenode.StartWinRM(context.Background(), fakenode.NewNode(fakenode.NodeOptions{Scenario: served, Node: "win-2"}),
		fakenode.WinRMOptions{User: "Administrator", Password: examplePassword, TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ca, err := os.ReadFile(w.caFile)
	if err != nil {
		t.Fatal(err)
	}
	w.peer, w.peerCA = srv.Addr(), filepath.Join(w.dir, "pool-ca.pem")
	write(t, w.peerCA, append(ca, srv.CertPEM()...))
}

func mustSub(t *testing.T, name string) fs.FS {
	t.Helper()
	sub, err := fs.Sub(scenarios.FS(), name)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

const exampleTicket = `PS C:\k> Get-Service kubelet, kube-proxy, docker | Format-Table Status, StartType, Name

 Status StartType Name
 ------ --------- ----
Running Automatic docker
Stopped    Manual kube-proxy
Stopped    Manual kubelet

PS C:\k> Get-HnsNetwork | Select Name, Type, Subnets

Name    : nat
Type    : nat
Subnets : {@{AddressPrefix=172.27.112.0/20; GatewayAddress=172.27.112.1}}

`
