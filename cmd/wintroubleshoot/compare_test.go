package main

import (
	"bytes"
	"context"
	"io/fs"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// TestCompareTwoScenarios: the healthy SDN node against the same layout without a podCIDR
// (two scenarios of one cluster layout): the files that differ are listed, those read by a
// probe judging the two differently first; a node against itself differs in nothing.
func TestCompareTwoScenarios(t *testing.T) {
	healthy, broken := scenarioDir(t, "healthy-sdn-l2bridge-docker"), scenarioDir(t, "podcidr-empty")
	code, out, errOut := run(t, "compare", "win-1", "win-1", "--from", healthy, "--from-b", broken)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"hns-networks.json", "cni-config.json", "judged differently by: HNS-NETWORK"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := run(t, "compare", "win-1", "win-1", "--from", healthy); code != 0 || !strings.Contains(out, "no evidence differs") {
		t.Errorf("a node against itself: exit %d\n%s", code, out)
	}
	if got := complete(t, "compare", "--from", healthy, ""); strings.Join(got, " ") != "win-1" {
		t.Errorf("NODE-A completes to %v from --from, want win-1", got)
	}
	if got := complete(t, "compare", "--from", healthy, "win-1", "win-1", ""); len(got) != 0 {
		t.Errorf("a third argument completes to %v", got)
	}
	if code, _, errOut := run(t, "compare", "win-1", "win-9", "--from", healthy); code != 2 || !strings.Contains(errOut, "no evidence for node win-9") {
		t.Errorf("unknown node: exit %d, %s", code, errOut)
	}
	// Without --from the nodes are swept live: with no cluster and no --node, nothing to reach.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	if code, _, errOut := run(t, "compare", "win-1", "win-1"); code != 3 || !strings.Contains(errOut, "--node NAME=HOST") {
		t.Errorf("without --from or a cluster: exit %d, want 3: %s", code, errOut)
	}
}

// TestCompareLive: two nodes of one pool on a real API server, each a fake node over
// WinRM HTTPS: win-1 as the healthy SDN node, win-2 as the same layout with kube-proxy
// pointed at cbr0. compare sweeps both now and ranks kube-proxy's command line (the
// file HNS-KPROXY-NET judges differently) above everything no probe judges differently;
// the cluster's own files, shared by both, never differ. An unknown node is bad input and
// a node that does not answer makes the comparison impossible.
func TestCompareLive(t *testing.T) {
	cl := kubeapi.Start(t)
	cs, err := kubernetes.NewForConfig(cl.Config)
	if err != nil {
		t.Fatal(err)
	}
	healthy, _, _, err := scenarios.Load("healthy-sdn-l2bridge-docker")
	if err != nil {
		t.Fatal(err)
	}
	broken, _, _, err := scenarios.Load("kube-proxy-cbr0")
	if err != nil {
		t.Fatal(err)
	}
	uids := seed(t, cs, healthy)
	addNode(t, cs, "win-1", "win-2", "10.200.3.0/24", "10.240.0.31")
	addNode(t, cs, "win-1", "win-3", "10.200.4.0/24", "10.240.0.32")

	const pw = "compare-pass"
	t.Setenv("WTS_PASSWORD", pw)
	dir := t.TempDir()
	var pems []byte
	args := []string{"--kubeconfig", cl.Kubeconfig}
	for _, n := range []struct {
		name string
		fsys fs.FS
	}{{"win-1", withPodUIDs(t, healthy, uids)}, {"win-2", asNode(t, withPodUIDs(t, broken, uids), "win-1", "win-2")}} {
		srv, err := fakenode.StartWinRM(context.Background(), fakenode.NewNode(fakenode.NodeOptions{Scenario: n.fsys, Node: n.name}),
			fakenode.WinRMOptions{User: "Administrator", Password: pw, TLS: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		pems = append(pems, srv.CertPEM()...)
		args = append(args, "--node", n.name+"=winrm-https://"+srv.Addr())
	}
	ca := filepath.Join(dir, "ca.pem")
	write(t, ca, pems)
	// win-3 answers every connection by closing it: a node that is there but not reachable.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	args = append(args, "--winrm-ca-file", ca, "--node", "win-3=winrm-https://"+ln.Addr().String())

	code, out, errOut := run(t, append([]string{"compare", "win-1", "win-2"}, args...)...)
	t.Logf("compare win-1 win-2:\n%s", out)
	if code != 1 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if strings.Contains(out+errOut, pw) {
		t.Fatal("the password appears in the output")
	}
	var ranked []string // file names, in the order printed
	judged := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "    ") && len(f) > 0 {
			ranked = append(ranked, f[0])
		}
		if j, ok := strings.CutPrefix(l, "    judged differently by: "); ok {
			judged[ranked[len(ranked)-1]] = j
		}
	}
	if len(ranked) == 0 || ranked[0] != "processes.json" || !strings.Contains(judged["processes.json"], "HNS-KPROXY-NET") {
		t.Errorf("kube-proxy's command line does not rank first as judged by HNS-KPROXY-NET: %v %v\n%s", ranked, judged, out)
	}
	seenUnjudged := false
	for _, name := range ranked {
		if strings.HasPrefix(name, "cluster/") {
			t.Errorf("%s differs between two nodes of one cluster", name)
		}
		if judged[name] == "" {
			seenUnjudged = true
		} else if seenUnjudged {
			t.Errorf("%s, judged differently, ranks below a file no probe judges differently: %v", name, ranked)
		}
	}
	if !slices.Contains(ranked, "kube-proxy.log") {
		t.Errorf("kube-proxy.log, which differs, is not listed: %v", ranked)
	}
	if code, out, errOut := run(t, append([]string{"compare", "win-1", "win-1"}, args...)...); code != 0 || !strings.Contains(out, "no evidence differs") {
		t.Errorf("a node against itself: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run(t, append([]string{"compare", "win-1", "win-9"}, args...)...); code != 2 || !strings.Contains(errOut, "no Windows node win-9") {
		t.Errorf("unknown node: exit %d, %s", code, errOut)
	}
	if code, _, errOut := run(t, append([]string{"compare", "win-1", "win-3"}, args...)...); code != 3 || !strings.Contains(errOut, "win-3") {
		t.Errorf("a node that does not answer: exit %d, %s", code, errOut)
	}
	if code, _, errOut := run(t, "compare", "win-1", "win-2", "--from-b", dir); code != 2 || !strings.Contains(errOut, "goes with --from") {
		t.Errorf("--from-b alone: exit %d, %s", code, errOut)
	}
}

// asNode is a scenario's node folder as another node of the pool would answer: every
// file of nodes/<from>/ under nodes/<to>/, its own name in it changed (host name, the
// kubelet's --hostname-override, its log lines).
func asNode(t *testing.T, fsys fs.FS, from, to string) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(fsys, "nodes/"+from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		out["nodes/"+to+strings.TrimPrefix(p, "nodes/"+from)] = &fstest.MapFile{Data: bytes.ReplaceAll(b, []byte(from), []byte(to)), Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
