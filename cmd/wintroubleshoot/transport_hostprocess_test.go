package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// TestTransportAutoMixedFleet: with --transport auto, a node with an address and the
// password is reached over WinRM HTTPS, and one whose address answers nothing falls back
// to a HostProcess pod; the report says which, and why, and no pod is left.
func TestTransportAutoMixedFleet(t *testing.T) {
	cl, cs, tlsCfg := kubeletCluster(t)
	fsys, meta, _, err := scenarios.Load("healthy-containerd-overlay")
	if err != nil {
		t.Fatal(err)
	}
	fake := func() *fakenode.Node {
		return fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: meta.Nodes[0]})
	}
	for _, name := range []string{"win-a", "win-b"} {
		k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: name, Client: cs, TLS: tlsCfg, Responder: fake()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Close() })
	}
	const pw = "auto'pass\"word"
	t.Setenv("WTS_PASSWORD", pw)
	srv, err := fakenode.StartWinRM(context.Background(), fake(), fakenode.WinRMOptions{User: "Administrator", Password: pw, TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, srv.CertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "--report", "-o", "json", "--kubeconfig", cl.Kubeconfig, "--transport", "auto",
		"--node", "win-a="+srv.Addr(), "--winrm-ca-file", ca)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Reached  string
		Findings []struct{ Probe, Node, Status string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("reached: %s (%d findings)", rep.Reached, len(rep.Findings))
	if !strings.Contains(rep.Reached, "win-a over winrm-https") || !strings.Contains(rep.Reached, "win-b over hostprocess (winrm-https: ") {
		t.Errorf("reached = %q, want win-a over winrm-https and win-b over hostprocess after winrm-https", rep.Reached)
	}
	for _, f := range rep.Findings {
		if f.Probe == "REACH" && f.Status != "pass" {
			t.Errorf("node %s not reached: %+v", f.Node, f)
		}
	}
	if strings.Contains(out+errOut, pw) {
		t.Fatal("the password appears in the output")
	}
	left, err := cs.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue})
	if err != nil || len(left.Items) != 0 {
		t.Fatalf("pods left: %d (%v)", len(left.Items), err)
	}
}

// TestDemoHostProcess: demo --hostprocess adds a node per scenario reached through a
// HostProcess pod, judged exactly as the same scenario over WinRM/SSH; without the
// kube-apiserver binaries it says what to do instead.
func TestDemoHostProcess(t *testing.T) {
	if kubeapi.BinDir() == "" {
		t.Skip("needs the kube-apiserver binaries (WTS_KUBEAPI_BIN)")
	}
	code, out, errOut := run(t, "demo", "--hostprocess", "--report", "-o", "json", "--scenario", "routes-missing")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Findings []struct{ Probe, Node, Status, Summary string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	byNode := map[string][]string{}
	for _, f := range rep.Findings {
		byNode[f.Node] = append(byNode[f.Node], f.Probe+" "+f.Status+" "+f.Summary)
	}
	hp, direct := byNode["hostprocess:routes-missing.win-1"], byNode["routes-missing"]
	if len(hp) == 0 || strings.Join(hp, "\n") != strings.Join(direct, "\n") {
		t.Fatalf("hostprocess node:\n  %s\nWinRM/SSH node:\n  %s", strings.Join(hp, "\n  "), strings.Join(direct, "\n  "))
	}

	t.Setenv("WTS_KUBEAPI_BIN", t.TempDir()) // no binaries there
	code, _, errOut = run(t, "demo", "--hostprocess", "--report", "--scenario", "routes-missing")
	if code != 2 || !strings.Contains(errOut, "fixtures/kubeapi/build.sh") {
		t.Fatalf("without binaries: exit %d, %q", code, errOut)
	}
}

// kubeletCluster starts the test cluster and the serving TLS its fake kubelets use on
// loopback, which the apiserver trusts.
func kubeletCluster(t *testing.T) (*kubeapi.Cluster, *kubernetes.Clientset, *tls.Config) {
	t.Helper()
	cl := kubeapi.Start(t)
	tlsCfg, err := cl.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	return cl, kubernetes.NewForConfigOrDie(cl.Config), tlsCfg
}
