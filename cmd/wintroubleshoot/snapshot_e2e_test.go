package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh/knownhosts"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
)

// TestSnapshotAgainstAPIServerAndFleet: a snapshot of two Windows nodes (one over WinRM
// HTTPS, one over SSH) and a real API server, analyzed offline, gives the live findings.
func TestSnapshotAgainstAPIServerAndFleet(t *testing.T) {
	cl := kubeapi.Start(t)
	cs, err := kubernetes.NewForConfig(cl.Config)
	if err != nil {
		t.Fatal(err)
	}
	healthy, _, _, err := scenarios.Load("healthy-sdn-l2bridge-docker")
	if err != nil {
		t.Fatal(err)
	}
	broken, _, _, err := scenarios.Load("routes-missing")
	if err != nil {
		t.Fatal(err)
	}
	served := withPodUIDs(t, healthy, seed(t, cs, healthy))
	addNode(t, cs, "win-1", "win-2", "10.200.3.0/24", "10.240.0.31")

	const pw = "snap-pass"
	t.Setenv("WTS_PASSWORD", pw)
	ctx := context.Background()
	winrm, err := fakenode.StartWinRM(ctx, fakenode.NewNode(fakenode.NodeOptions{Scenario: served, Node: "win-1"}),
		fakenode.WinRMOptions{User: "Administrator", Password: pw, TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer winrm.Close()
	sshd, err := fakenode.StartSSH(ctx, fakenode.NewNode(fakenode.NodeOptions{Scenario: broken, Node: "win-1"}),
		fakenode.SSHOptions{User: "Administrator", Password: pw, HostKeySeed: "win-2"})
	if err != nil {
		t.Fatal(err)
	}
	defer sshd.Close()
	dir := t.TempDir()
	ca, kh := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "known_hosts")
	os.WriteFile(ca, winrm.CertPEM(), 0o600)
	os.WriteFile(kh, []byte(knownhosts.Line([]string{knownhosts.Normalize(sshd.Addr())}, sshd.HostKey())+"\n"), 0o600)
	access := []string{"--kubeconfig", cl.Kubeconfig, "--winrm-ca-file", ca, "--ssh-known-hosts", kh,
		"--node", "win-1=winrm-https://" + winrm.Addr(), "--node", "win-2=ssh://" + sshd.Addr()}

	code, live, errOut := run(t, append([]string{"--report", "-o", "json"}, access...)...)
	if code != 1 {
		t.Fatalf("live exit %d: %s", code, errOut)
	}
	snap := filepath.Join(dir, "case.tar.gz")
	code, _, errOut = run(t, append([]string{"snapshot", snap}, access...)...)
	if code != 1 {
		t.Fatalf("snapshot exit %d: %s", code, errOut)
	}
	code, offline, errOut := run(t, "analyze", snap, "-o", "json")
	if code != 1 {
		t.Fatalf("analyze exit %d: %s", code, errOut)
	}
	got, want := verdicts(t, offline), verdicts(t, live)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("offline:\n  %s\nlive:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	nodes := map[string]bool{}
	for _, v := range got {
		nodes[strings.Fields(v)[0]] = true
	}
	if !nodes["win-1"] || !nodes["win-2"] {
		t.Fatalf("nodes judged: %v", nodes)
	}
	raw, err := os.ReadFile(snap)
	if err != nil || strings.Contains(string(raw), pw) {
		t.Fatalf("bundle unreadable or holds the password: %v", err)
	}

	// The screen's s key: the same snapshot from a live session, with progress.
	kube := kubeFlags()
	lo := &liveOptions{kube: kube}
	cmd := &cobra.Command{}
	kube.AddFlags(cmd.Flags())
	lo.addFlags(cmd)
	if err := cmd.ParseFlags(access); err != nil {
		t.Fatal(err)
	}
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	sess, err := lo.connect(ctx, streams)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var last [2]int
	path, err := sessionSnapshot{sess: sess.api(nil)}.Snapshot(ctx, func(done, total int, _ string) { last = [2]int{done, total} })
	if err != nil || last[0] != last[1] || last[1] != 3 {
		t.Fatalf("snapshot from the screen: %v, progress %v", err, last)
	}
	b, err := bundle.Open(filepath.Join(dir, path))
	if err != nil {
		t.Fatalf("the screen's bundle does not verify: %v", err)
	}
	if _, ok := b.Manifest().Nodes["win-2"]; !ok {
		t.Fatalf("manifest nodes %v", b.Manifest().Nodes)
	}
}

// addNode registers another Windows node shaped like an existing one.
func addNode(t *testing.T, cs *kubernetes.Clientset, like, name, podCIDR, ip string) {
	t.Helper()
	ctx := context.Background()
	n, err := cs.CoreV1().Nodes().Get(ctx, like, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.ObjectMeta = metav1.ObjectMeta{Name: name, Labels: n.Labels}
	n.Labels["kubernetes.io/hostname"] = name
	n.Spec.PodCIDR, n.Spec.PodCIDRs = podCIDR, []string{podCIDR}
	status := n.Status
	status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}}
	created, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(fmt.Errorf("creating %s: %w", name, err))
	}
	created.Status = status
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
