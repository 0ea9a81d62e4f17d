package probes_test

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// edited is a scenario's tree with one node file's bytes replaced (old -> new, each once or more).
func edited(t *testing.T, scenario, file string, pairs ...string) fs.FS {
	t.Helper()
	tree, _, _, err := scenarios.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	hit := false
	if err := fs.WalkDir(tree, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(tree, path)
		if strings.HasSuffix(path, "/"+file) {
			for i := 0; i+1 < len(pairs); i += 2 {
				if bytes.Contains(b, []byte(pairs[i])) {
					hit = true
				}
				b = bytes.ReplaceAll(b, []byte(pairs[i]), []byte(pairs[i+1]))
			}
		}
		m[path] = &fstest.MapFile{Data: b}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !hit {
		t.Fatalf("%s/%s: nothing to replace", scenario, file)
	}
	return m
}

func judge(t *testing.T, probe, node string, tree fs.FS) probes.Finding {
	t.Helper()
	p, ok := probes.Default().Get(probe)
	if !ok {
		t.Fatalf("no probe %s", probe)
	}
	return probes.RunProbe(p, node, evidence.Evidence{FS: tree})[0]
}

// TestAzureCNIExceptionList: AgentBaker's 10-azure.conflist lists the node subnet and the
// VNet space and no service CIDR, and passes; one that lost the node subnet still fails.
func TestAzureCNIExceptionList(t *testing.T) {
	const node = "akswin000000"
	if f := judge(t, "DNS-CONFIG", node, mustLoad(t, "layout-aks-azure-cni")); f.Status != probes.Pass {
		t.Errorf("AgentBaker's ExceptionList: %s %q, want pass", f.Status, f.Summary)
	}
	lost := edited(t, "layout-aks-azure-cni", "cni-config.json", `"10.224.0.0/16"`, `"172.16.0.0/12"`, `"10.224.0.0/12"`, `"172.16.0.0/12"`)
	if f := judge(t, "DNS-CONFIG", node, lost); f.Status != probes.Fail || !strings.Contains(f.Summary, "node subnet") {
		t.Errorf("ExceptionList without the node subnet: %s %q, want a fail naming the node subnet", f.Status, f.Summary)
	}
}

// TestKubeProxyNetworkFromLoadedLine: on an SDN-script node the network name is only in
// kube-proxy's log ($env:KUBE_NETWORK); a later "not found" line wins over an earlier load.
func TestKubeProxyNetworkFromLoadedLine(t *testing.T) {
	const node = "win-1"
	f := judge(t, "HNS-KPROXY-NET", node, mustLoad(t, "healthy-sdn-l2bridge-docker"))
	if f.Status != probes.Pass || !strings.Contains(f.Summary, "l2bridge") {
		t.Errorf("loaded l2bridge: %s %q, want pass on l2bridge", f.Status, f.Summary)
	}
	gone := edited(t, "healthy-sdn-l2bridge-docker", "kube-proxy.log", "{l2bridge ", "{cbr0 ")
	if f := judge(t, "HNS-KPROXY-NET", node, gone); f.Status != probes.Fail || !strings.Contains(f.Summary, "cbr0") {
		t.Errorf("loaded a network that is not there: %s %q, want a fail naming cbr0", f.Status, f.Summary)
	}
}

// TestPauseNotPulledYet: a registry pause image no pod has needed yet is a warning; the
// SDN scripts' local kubeletwin/pause, which no registry serves, stays a failure.
func TestPauseNotPulledYet(t *testing.T) {
	if f := judge(t, "IMG-PAUSE", "win-1", mustLoad(t, "podcidr-empty")); f.Status != probes.Warn {
		t.Errorf("mcr pause on a node no pod ran on: %s %q, want warn", f.Status, f.Summary)
	}
	if f := judge(t, "IMG-PAUSE", "win-1", mustLoad(t, "pause-nanoserver-untagged")); f.Status != probes.Fail {
		t.Errorf("kubeletwin/pause missing: %s %q, want fail", f.Status, f.Summary)
	}
}

// TestRKE2Supervised: with the rke2 service down, the components say to check rke2
// rather than to register services of their own.
func TestRKE2Supervised(t *testing.T) {
	tree := mustLoad(t, "layout-rke2-stopped")
	for _, id := range []string{"SVC-KUBELET", "SVC-KUBEPROXY", "SVC-RUNTIME"} {
		f := judge(t, id, "win-rke2-01", tree)
		text := strings.Join(append([]string{f.Summary}, f.Details...), "\n")
		if f.Status != probes.Fail || !strings.Contains(text, "Get-Service rke2") || f.Fix == nil || f.Fix.ID != "start-rke2" {
			t.Errorf("%s: %s %q (fix %+v), want a fail that points at the rke2 service", id, f.Status, text, f.Fix)
		}
	}
}

func mustLoad(t *testing.T, name string) fs.FS {
	t.Helper()
	tree, _, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
