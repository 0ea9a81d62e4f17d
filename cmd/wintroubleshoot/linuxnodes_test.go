package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// TestReportLinuxNodes: against a real API server holding a mixed cluster, --linux-nodes
// sweeps the Linux workers the cluster lists (label kubernetes.io/os=linux) over SSH with
// a key, as root, known_hosts verified, and judges as `analyze` judges the recorded
// scenario; without the flag the Linux workers are left alone and their --node entries
// are named in a warning.
func TestReportLinuxNodes(t *testing.T) {
	const name = "mixed-hardway-healthy"
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
	const pw = "mixed'pass\"word$`"
	t.Setenv("WTS_PASSWORD", pw)
	dir := t.TempDir()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, _ := ssh.NewPublicKey(pub)
	block, _ := ssh.MarshalPrivateKey(priv, "")
	key, kh := filepath.Join(dir, "id_ed25519"), filepath.Join(dir, "known_hosts")
	write(t, key, pem.EncodeToMemory(block))
	var known []byte
	var nodeArgs []string
	linux := map[string]*fakenode.LinuxNode{}
	for _, node := range meta.Nodes {
		if fakenode.IsLinuxNode(served, node) {
			fake := fakenode.NewLinuxNode(fakenode.NodeOptions{Scenario: served, Node: node})
			srv, err := fakenode.StartLinuxSSH(context.Background(), fake, fakenode.SSHOptions{User: "root", AuthorizedKeys: []ssh.PublicKey{sshPub}, HostKeySeed: node})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			linux[node] = fake
			known = append(known, knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.HostKey())+"\n"...)
			nodeArgs = append(nodeArgs, "--node", node+"="+srv.Addr()) // the label, not the scheme, says Linux
			continue
		}
		srv, err := fakenode.StartWinRM(context.Background(), fakenode.NewNode(fakenode.NodeOptions{Scenario: served, Node: node}),
			fakenode.WinRMOptions{User: "Administrator", Password: pw, TLS: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		ca := filepath.Join(dir, node+"-ca.pem")
		write(t, ca, srv.CertPEM())
		_, port, _ := strings.Cut(srv.Addr(), ":")
		p, _ := strconv.Atoi(port)
		nodeArgs = append(nodeArgs, "--node", fmt.Sprintf("%s=winrm-https://127.0.0.1:%d", node, p), "--winrm-ca-file", ca)
	}
	if len(linux) == 0 {
		t.Fatalf("%s has no Linux workers", name)
	}
	if err := os.WriteFile(kh, known, 0o600); err != nil {
		t.Fatal(err)
	}
	base := append([]string{"--report", "-o", "json", "--kubeconfig", cl.Kubeconfig, "--ssh-key", key, "--ssh-known-hosts", kh}, nodeArgs...)

	code, _, errOut := run(t, base...)
	if code != 0 && code != 1 {
		t.Fatalf("without --linux-nodes: exit %d: %s", code, errOut)
	}
	for node, fake := range linux {
		if len(fake.Commands()) != 0 || !strings.Contains(errOut, "--node "+node+": no node of that name") {
			t.Errorf("without --linux-nodes %s got %d commands; stderr %s", node, len(fake.Commands()), errOut)
		}
	}

	code, live, errOut := run(t, append(base, "--linux-nodes")...)
	if code != 0 && code != 1 {
		t.Fatalf("--linux-nodes: exit %d: %s", code, errOut)
	}
	if strings.Contains(live+errOut, pw) {
		t.Fatal("the password appears in the output")
	}
	for node, fake := range linux {
		cmds := fake.Commands()
		if len(cmds) != 1 || cmds[0].CommandLine != "sh -s" || len(cmds[0].Calls) == 0 {
			t.Errorf("%s: %+v, want one shell sweep", node, cmds)
		}
	}
	_, recorded, _ := run(t, "analyze", scenarioDir(t, name), "-o", "json")
	if got, want := verdicts(t, live), verdicts(t, recorded); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("live:\n  %s\nrecorded:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
