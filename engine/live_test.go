package engine_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	sshtr "github.com/wintroubleshoot/wintroubleshoot/collect/transport/ssh"
	winrmtr "github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

const testUser, testPassword = "Administrator", "p@ss'w\"rd$`x"

func dial(_ context.Context, cfg transport.Config) (transport.Transport, error) {
	if cfg.Kind == transport.SSH {
		return sshtr.New(cfg)
	}
	return winrmtr.New(cfg)
}

// serve starts a fake node for one scenario node over one transport kind and returns the
// config that reaches it, with TLS and host keys verified.
func serve(t *testing.T, kind transport.Kind, fake fakenode.Responder, faults *fakenode.Faults) transport.Config {
	t.Helper()
	ctx := context.Background()
	cfg := transport.Config{Kind: kind, Host: "127.0.0.1", User: testUser, Password: testPassword, Auth: "ntlm", Timeout: 20 * time.Second}
	switch kind {
	case transport.SSH:
		srv, err := fakenode.StartSSH(ctx, fake, fakenode.SSHOptions{User: testUser, Password: testPassword, HostKeySeed: t.Name(), Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		kh := filepath.Join(t.TempDir(), "known_hosts")
		line := knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.HostKey())
		if err := os.WriteFile(kh, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg.KnownHosts, cfg.Port = kh, portOf(srv.Addr())
	default:
		https := kind == transport.WinRMHTTPS
		srv, err := fakenode.StartWinRM(ctx, fake, fakenode.WinRMOptions{User: testUser, Password: testPassword, TLS: https,
			AllowUnencrypted: !https, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		if https {
			ca := filepath.Join(t.TempDir(), "ca.pem")
			if err := os.WriteFile(ca, srv.CertPEM(), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg.CAFile = ca
		}
		cfg.Port = portOf(srv.Addr())
	}
	return cfg
}

func portOf(addr string) int {
	var p int
	fmt.Sscanf(addr[strings.LastIndex(addr, ":")+1:], "%d", &p)
	return p
}

// clusterTree seeds a tree with a scenario's cluster evidence (node evidence must come
// over the wire).
func clusterTree(t testing.TB, fsys fs.FS) *evidence.Tree {
	tree := evidence.NewTree()
	if err := tree.CopyFrom(fsys, "cluster"); err != nil {
		t.Fatal(err)
	}
	return tree
}

func brief(fs []probes.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s %s %s: %s", f.Node, f.Probe, f.Status, f.Summary)
	}
	return out
}

// TestLiveEqualsAnalyze: over WinRM HTTP, WinRM HTTPS and SSH, a live sweep of a fake node
// gives exactly the findings `analyze` gives over the same scenario.
func TestLiveEqualsAnalyze(t *testing.T) {
	kinds := []transport.Kind{transport.WinRM, transport.WinRMHTTPS, transport.SSH}
	for _, name := range scenarios.Names() {
		fsys, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		// Linux workers are not swept here: the fake node answers PowerShell only, so
		// their evidence is copied in and they are left out of both runs.
		var windows, linux []string
		for _, node := range meta.Nodes {
			if evidence.NodeOS(evidence.Evidence{FS: fsys}, node) == evidence.Linux {
				linux = append(linux, node)
			} else {
				windows = append(windows, node)
			}
		}
		want, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, windows)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range kinds {
			t.Run(name+"/"+string(kind), func(t *testing.T) {
				var targets []engine.Target
				for _, node := range windows {
					fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node})
					targets = append(targets, engine.Target{Name: node, Transport: serve(t, kind, fake, nil)})
				}
				tree := clusterTree(t, fsys)
				for _, node := range linux {
					if err := tree.CopyFrom(fsys, "nodes/"+node); err != nil {
						t.Fatal(err)
					}
				}
				eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: tree, Timeout: time.Minute}
				got := eng.Probe(context.Background(), targets, nil)
				if !reflect.DeepEqual(brief(got), brief(want)) {
					t.Fatalf("live over %s differs from analyze:\nlive:\n  %s\nanalyze:\n  %s", kind,
						strings.Join(brief(got), "\n  "), strings.Join(brief(want), "\n  "))
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("findings agree in summary but differ in details or fixes")
				}
			})
		}
	}
}
