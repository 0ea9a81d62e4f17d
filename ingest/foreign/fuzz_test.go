package foreign_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/foreign"
)

// seedTree is a scenario whose node has most evidence (routes-missing: win-1).
func seedTree(f *testing.F) (files, files, files, []byte) {
	tree, _, _, err := scenarios.Load("routes-missing")
	if err != nil {
		f.Fatal(err)
	}
	return collectlogsFiles(f, tree, "win-1", "2024"), aksFiles(f, tree, "win-1"), eksFiles(f, tree, "win-1"), dumpStdout(f, tree)
}

// checkResult: whatever the input, every evidence file the reader gives decodes with its
// key's own decoder (a mapping never writes evidence the probes would call garbled).
func checkResult(t *testing.T, res *foreign.Result, err error) {
	if err != nil {
		return
	}
	for p, b := range res.Files {
		k, ok := evidence.Of(p)
		if !ok {
			t.Fatalf("%s: written, but no evidence key has that path", p)
		}
		if err := k.Validate(p, b); err != nil {
			t.Fatalf("%s: written but does not decode: %v", p, err)
		}
	}
}

func fuzzFolder(t *testing.T, fs files, lim bundle.Limits) {
	dir := folder(t, t.TempDir(), fs)
	res, err := foreign.Open(context.Background(), []string{dir}, foreign.Options{Limits: lim})
	checkResult(t, res, err)
}

func with(fs files, set map[string][]byte) files {
	out := files{}
	for k, v := range fs {
		out[k] = v
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}

func FuzzCollectlogs(f *testing.F) {
	cl, _, _, _ := seedTree(f)
	f.Add(cl["network.txt"], cl["endpoint.txt"], cl["ip.txt"], cl["routes.txt"], cl["scqueryex.txt"])
	f.Add([]byte("[{\"ID\":1}]"), []byte("{\"IpConfigurations\":[{}]}"), []byte("\xff\xfe\x00"), []byte("ifIndex DestinationPrefix\n"), []byte("SERVICE_NAME: x\n"))
	f.Fuzz(func(t *testing.T, network, endpoint, ip, routes, sc []byte) {
		fuzzFolder(t, with(cl, map[string][]byte{"network.txt": network, "endpoint.txt": endpoint, "ip.txt": ip, "routes.txt": routes, "scqueryex.txt": sc}), bundle.DefaultLimits())
	})
}

func FuzzAKS(f *testing.F) {
	_, aks, _, _ := seedTree(f)
	f.Add(aks["kubeclusterconfig.json"], aks["kubelet.err.log"], aks["policy.txt"], []byte("Name: win-1\n"))
	f.Fuzz(func(t *testing.T, kcc, kubelet, policy, describe []byte) {
		fuzzFolder(t, with(aks, map[string][]byte{"kubeclusterconfig.json": kcc, "kubelet.err.log": kubelet, "policy.txt": policy, "kubectl-describe-nodes.log": describe}), bundle.DefaultLimits())
	})
}

func FuzzEKS(f *testing.F) {
	_, _, eks, _ := seedTree(f)
	f.Add(eks["system/kubelet/kubelet-service.csv"], eks["system/services"], eks["system/sysinfo"])
	f.Add([]byte("#TYPE x\n\"Message\"\n\"unterminated"), []byte("Name : x\n"), []byte("Host Name: A_B\n"))
	f.Fuzz(func(t *testing.T, csv, services, sysinfo []byte) {
		fuzzFolder(t, with(eks, map[string][]byte{"system/kubelet/kubelet-service.csv": csv, "system/services": services, "system/sysinfo": sysinfo}), bundle.DefaultLimits())
	})
}

func FuzzClusterDump(f *testing.F) {
	_, _, _, dump := seedTree(f)
	f.Add(dump)
	f.Add([]byte(`{"kind":"NodeList","items":[{}]}==== START logs for container c of pod a/b ====`))
	f.Fuzz(func(t *testing.T, text []byte) {
		p := filepath.Join(t.TempDir(), "dump.txt")
		if err := os.WriteFile(p, text, 0o600); err != nil {
			t.Fatal(err)
		}
		res, err := foreign.Open(context.Background(), []string{p}, foreign.Options{})
		checkResult(t, res, err)
	})
}

// FuzzArchive: any bytes as a zip or tar.gz are read within the limits or refused.
func FuzzArchive(f *testing.F) {
	cl, _, _, _ := seedTree(f)
	dir := f.TempDir()
	z, _ := os.ReadFile(zipped(f, dir, "c.zip", cl))
	g, _ := os.ReadFile(tarGz(f, dir, "c.tar.gz", cl))
	f.Add(z)
	f.Add(g)
	f.Add(z[:len(z)/3])
	lim := bundle.DefaultLimits()
	lim.MaxEntries, lim.MaxTotal, lim.MaxText, lim.MaxLog = 64, 1<<20, 256<<10, 256<<10
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		res, err := foreign.Open(context.Background(), []string{p}, foreign.Options{Limits: lim})
		checkResult(t, res, err)
		if err == nil {
			total := 0
			for _, b := range res.Files {
				total += len(b)
			}
			if int64(total) > 4*lim.MaxTotal {
				t.Fatalf("%d bytes of evidence from an input bounded at %d", total, lim.MaxTotal)
			}
		}
	})
}
