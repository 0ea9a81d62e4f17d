// The seeded-secrets test lives in the external test package: it judges bundles with
// the probes, and probes/engine may import collectors/bundle's dependencies but the
// bundle package itself must never import the probes. An external _test package may.
package bundle_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/redact"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/probes/engine"
)

// nodePassword is the password the tool itself used to reach the nodes: the redactor
// is told it (AddLiteral) and it must go wherever it appears.
const nodePassword = "SeedNodePw-16!"

// seededLog holds every kind of secret that turns up in text, one per line.
var seededLog = strings.Join([]string{
	"I0101 00:00:01.000000 1 setup.go:1] net user kadmin SeedNetUser-01 /add",
	`I0101 00:00:02.000000 1 reflector.go:1] object {"apiVersion":"v1","data":{"token":"U2VlZExvZ1NlY3JldDAy"},"kind":"Secret","type":"Opaque"}`,
	"I0101 00:00:03.000000 1 http.go:1] GET /v2/ Authorization: Basic U2VlZEJhc2ljMDM=",
	`I0101 00:00:04.000000 1 round_trippers.go:1] curl -H "Authorization: Bearer SeedBearer-04" https://10.0.0.1:6443/api`,
	"I0101 00:00:05.000000 1 db.go:1] conn Server=db;Uid=sa;Pwd=SeedPwd-05;Database=x",
	"I0101 00:00:06.000000 1 db.go:1] conn Data Source=db;User ID=sa;Password=SeedConnPw-06;",
	"I0101 00:00:07.000000 1 api.go:1] calling https://api.local/x?api_key=SeedApiKey-07&v=1",
	"I0101 00:00:08.000000 1 api.go:1] header x-api-key: SeedXApiKey-08",
	"I0101 00:00:09.000000 1 env.go:1] environment SECRET_KEY=SeedSecretKey-09",
	"I0101 00:00:10.000000 1 auth.go:1] token eyJhbGciOiJIUzI1NiJ9.eyJzZWVkIjoiU2VlZEp3dDEwIn0.U2VlZFNpZzEw rejected",
	"I0101 00:00:11.000000 1 pull.go:1] pulling https://seeduser:SeedUrlPw-11@registry.local/v2/pause",
	"I0101 00:00:12.000000 1 aws.go:1] aws AKIASEEDSEEDSEED0012 aws_secret_access_key=SeedAwsSecret/13",
	"I0101 00:00:14.000000 1 join.go:1] kubeadm join 10.0.0.1:6443 --token seed14.0123456789abcdef",
	"-----BEGIN RSA PRIVATE KEY-----",
	"U2VlZFBlbUtleTE1U2VlZFBlbUtleTE1",
	"-----END RSA PRIVATE KEY-----",
	"I0101 00:00:16.000000 1 winrm.go:1] reconnecting with password " + nodePassword + " to the node",
	"I0101 00:00:17.000000 1 cmd.go:1] kubelet.exe --password=SeedFlagEq-17 --v=2",
	`I0101 00:00:18.000000 1 ps.go:1] $p = ConvertTo-SecureString "SeedSecStr-18" -AsPlainText -Force`,
	"I0101 00:00:19.000000 1 blob.go:1] DefaultEndpointsProtocol=https;AccountName=a;AccountKey=U2VlZEFjY3RLZXkxOQ==;",
	"I0101 00:00:20.000000 1 oidc.go:1] client_secret=SeedClientSecret-20",
}, "\n") + "\n"

const seededTOML = `
[plugins."io.containerd.grpc.v1.cri".registry.configs."seed.local".auth]
  auth = "U2VlZFJlZ0F1dGgyMQ=="
  identitytoken = "SeedIdToken-22"
`

const seededKubeconfig = `apiVersion: v1
clusters:
- cluster:
    server: https://kc:SeedKcUrlPw-25@10.0.0.1:6443
  name: k
users:
- name: kubelet
  user:
    client-key-data: U2VlZEtleURhdGEyMw==
    token: SeedKubeToken-24
`

const seededSecrets = `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Secret","type":"Opaque",
"data":{"password":"U2VlZFNlY3JldERhdGEzMA=="},"stringData":{"k":"SeedStringData-31"},
"metadata":{"name":"s","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"x\":\"SeedLastApplied-32\"}}"}}}]}
`

// seededValues are every planted secret: none may appear in the bundle.
var seededValues = []string{
	"SeedNetUser-01", "U2VlZExvZ1NlY3JldDAy", "U2VlZEJhc2ljMDM=", "SeedBearer-04", "SeedPwd-05", "SeedConnPw-06",
	"SeedApiKey-07", "SeedXApiKey-08", "SeedSecretKey-09", "eyJzZWVkIjoiU2VlZEp3dDEwIn0", "SeedUrlPw-11",
	"AKIASEEDSEEDSEED0012", "SeedAwsSecret/13", "seed14.0123456789abcdef", "U2VlZFBlbUtleTE1", "SeedNodePw-16",
	"SeedFlagEq-17", "SeedSecStr-18", "U2VlZEFjY3RLZXkxOQ==", "SeedClientSecret-20", "U2VlZFJlZ0F1dGgyMQ==",
	"SeedIdToken-22", "U2VlZEtleURhdGEyMw==", "SeedKubeToken-24", "SeedKcUrlPw-25", "SeedEnvPw-26", "SeedEnvTok-27",
	"SeedArgPw-28", "SeedArgTok-29", "U2VlZFNlY3JldERhdGEzMA==", "SeedStringData-31", "SeedLastApplied-32",
	"SeedPsPw-33", "SeedHostPw-34", "SeedCniPw-35", "SeedCfgUrlPw-36", "SeedNodeAddrPw-37",
}

// plant puts every kind of secret into a scenario's evidence: its logs, containerd
// config, processes' command lines, host and CNI JSON, the pods' and DaemonSets' env and
// args, a Secret list, a kubeconfig, URLs in cluster JSON.
func plant(t *testing.T, tree *collectors.Tree) {
	t.Helper()
	ev := tree.Evidence()
	edit := func(p string, fn func(any) any) {
		b, err := ev.Read(p)
		if err != nil {
			return
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return // not JSON in this scenario (a recorded failure): leave it
		}
		out, err := json.MarshalIndent(fn(v), "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		tree.Put(p, out)
	}
	containers := func(v any) any {
		eachItem(v, func(item map[string]any) {
			spec := dig(item, "spec")
			if tmpl := dig(spec, "template", "spec"); tmpl != nil {
				spec = tmpl
			}
			cs, _ := spec["containers"].([]any)
			for _, c := range cs {
				c := c.(map[string]any)
				env, _ := c["env"].([]any)
				c["env"] = append(env, map[string]any{"name": "DB_PASSWORD", "value": "SeedEnvPw-26"},
					map[string]any{"name": "API_TOKEN", "value": "SeedEnvTok-27"})
				args, _ := c["args"].([]any)
				c["args"] = append(args, "--password", "SeedArgPw-28", "-Token", "SeedArgTok-29")
			}
		})
		return v
	}
	// A workload of its own too, for scenarios without pods.
	tree.Put("cluster/workloads.json", []byte(`{"apiVersion":"v1","kind":"List","items":[{"kind":"DaemonSet",
"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}}]}`))
	edit("cluster/workloads.json", containers)
	edit(collectors.ClusterPods, containers)
	edit(collectors.ClusterDaemonSets, containers)
	edit(collectors.ClusterConfig, func(v any) any {
		if m, ok := v.(map[string]any); ok {
			m["seedServer"] = "https://u:SeedCfgUrlPw-36@10.0.0.1:6443"
		}
		return v
	})
	tree.Put("cluster/secrets.json", []byte(seededSecrets))
	for _, node := range ev.Nodes() {
		nf := func(name string) string { return collectors.NodeFile(node, name) }
		for _, log := range []string{collectors.NodeKubeletLog, collectors.NodeKubeProxyLog, collectors.NodeLogStartup} {
			old, _ := ev.Read(nf(log))
			tree.Put(nf(log), append(append([]byte{}, old...), seededLog...))
		}
		if old, err := ev.Read(nf(collectors.NodeContainerdCfg)); err == nil {
			tree.Put(nf(collectors.NodeContainerdCfg), append(append([]byte{}, old...), seededTOML...))
		} else { // a Docker node: the registry config stands alone
			tree.Put(nf("registry.toml"), []byte(seededTOML))
		}
		tree.Put(nf("kubeconfig"), []byte(seededKubeconfig))
		edit(nf(collectors.NodeProcesses), func(v any) any {
			eachItem(v, func(p map[string]any) {
				if cl, ok := p["CommandLine"].(string); ok {
					p["CommandLine"] = cl + ` -Password "SeedPsPw-33"`
				}
			})
			return v
		})
		edit(nf(collectors.NodeHost), func(v any) any {
			if m, ok := v.(map[string]any); ok {
				m["AdminPassword"], m["Note"] = "SeedHostPw-34", "joined with "+nodePassword
			}
			return v
		})
		edit(nf(collectors.NodeCNIConfig), func(v any) any {
			if m, ok := v.(map[string]any); ok {
				m["etcd_password"] = "SeedCniPw-35"
			}
			return v
		})
	}
}

// eachItem calls fn on every object of a List (items), an array, or a single object.
func eachItem(v any, fn func(map[string]any)) {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				fn(m)
			}
		}
	case map[string]any:
		if items, ok := v["items"].([]any); ok {
			eachItem(items, fn)
			return
		}
		fn(v)
	}
}

func dig(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m
}

// untarAll returns every header name and body of a bundle, decompressed.
func untarAll(t *testing.T, p string) []byte {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return all.Bytes()
		}
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(hdr.Name + "\n")
		if _, err := io.Copy(&all, tr); err != nil {
			t.Fatal(err)
		}
	}
}

// analyzeBundle writes tree into a bundle with r and judges the bundle read back.
func analyzeBundle(t *testing.T, tree *collectors.Tree, r *redact.Redactor) ([]probes.Finding, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "snap.tar.gz")
	nodes := map[string]bundle.Node{}
	for _, n := range tree.Evidence().Nodes() {
		nodes[n] = bundle.Node{Transport: "winrm-https", Address: "https://admin:SeedNodeAddrPw-37@10.0.0.5:5986/wsman",
			Error: "retried with -Password " + nodePassword}
	}
	if _, err := bundle.Write(context.Background(), dst, bundle.TreeSource(tree), bundle.Options{Redact: r, Nodes: nodes}); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := engine.Analyze(probes.Default(), collectors.Evidence{FS: b.FS()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return got, dst
}

func sameFindings(t *testing.T, what string, want, got []probes.Finding) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return
	}
	wj, _ := json.MarshalIndent(want, "", " ")
	gj, _ := json.MarshalIndent(got, "", " ")
	wl, gl := strings.Split(string(wj), "\n"), strings.Split(string(gj), "\n")
	for i := 0; i < len(wl) && i < len(gl); i++ {
		if wl[i] != gl[i] {
			t.Errorf("%s: the redacted bundle judges differently; first difference at line %d:\n live:   %s\n bundle: %s", what, i+1, wl[i], gl[i])
			return
		}
	}
	t.Errorf("%s: the redacted bundle judges differently: %d lines of findings, live %d", what, len(gl), len(wl))
}

// TestSeededSecretsNeverReachTheBundle plants every kind of secret into every scenario,
// writes a bundle with default redaction (and the node password as a literal), and
// checks that no planted value is anywhere in the bundle's bytes and that the bundle
// judges exactly as the evidence did before it was bundled, with and without plants.
func TestSeededSecretsNeverReachTheBundle(t *testing.T) {
	// A layout may lack the file a kind is planted in (no CNI config on an AKS node
	// whose snippet failed): that scenario cannot carry the kind, but every kind must
	// be carried by some scenario.
	plantedSomewhere := map[string]bool{}
	defer func() {
		for _, s := range seededValues[:len(seededValues)-1] {
			if !plantedSomewhere[s] {
				t.Errorf("secret %q was planted in no scenario", s)
			}
		}
	}()
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			fsys, _, _, err := scenarios.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			tree := collectors.NewTree()
			if err := tree.CopyFrom(fsys, "cluster", "nodes"); err != nil {
				t.Fatal(err)
			}
			live, err := engine.Analyze(probes.Default(), tree.Evidence(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := analyzeBundle(t, tree, redact.Default())
			sameFindings(t, name, live, got)

			plant(t, tree)
			live, err = engine.Analyze(probes.Default(), tree.Evidence(), nil)
			if err != nil {
				t.Fatal(err)
			}
			r := redact.Default()
			if err := r.AddLiteral(nodePassword); err != nil {
				t.Fatal(err)
			}
			// The plants took: every value is in a bundle written without redaction.
			clear := filepath.Join(t.TempDir(), "clear.tar.gz")
			if _, err := bundle.Write(context.Background(), clear, bundle.TreeSource(tree), bundle.Options{NoRedact: true}); err != nil {
				t.Fatal(err)
			}
			clearBytes := untarAll(t, clear)
			for _, s := range seededValues[:len(seededValues)-1] { // the last is in Options, not the evidence
				if bytes.Contains(clearBytes, []byte(s)) {
					plantedSomewhere[s] = true
				} else {
					t.Logf("%q could not be planted here: the file it goes in is not in this scenario", s)
				}
			}
			got, dst := analyzeBundle(t, tree, r)
			sameFindings(t, name+" with secrets planted", live, got)
			raw := untarAll(t, dst)
			leaked := 0
			for _, s := range seededValues {
				if bytes.Contains(raw, []byte(s)) {
					leaked++
					t.Errorf("planted secret %q is in the bundle", s)
				}
			}
			if leaked != 0 {
				t.Errorf("%d of %d planted secrets leaked", leaked, len(seededValues))
			}
			for _, c := range r.Counts() {
				if strings.Contains(fmt.Sprint(c), "Seed") {
					t.Errorf("the redaction summary shows a value: %+v", c)
				}
			}
			if n := len(tree.Evidence().Nodes()); n > 0 && r.Total() < len(seededValues)-2 {
				t.Errorf("only %d values counted for %d kinds planted on %d nodes", r.Total(), len(seededValues), n)
			}
		})
	}
}

// TestFolderJudgesLikeTheEvidence: a scenario written to a folder and read through
// OpenEvidence (an os.Root with caps) judges exactly like the scenario itself.
func TestFolderJudgesLikeTheEvidence(t *testing.T) {
	for _, name := range scenarios.Names() {
		fsys, _, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		tree := collectors.NewTree()
		if err := tree.CopyFrom(fsys, "cluster", "nodes"); err != nil {
			t.Fatal(err)
		}
		want, err := engine.Analyze(probes.Default(), tree.Evidence(), nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, _, err := bundle.Spool(tree, dir, nil); err != nil {
			t.Fatal(err)
		}
		ev, source, closer, err := bundle.OpenEvidence(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.Analyze(probes.Default(), ev, nil)
		closer.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(source, "folder ") {
			t.Errorf("source %q", source)
		}
		sameFindings(t, name+" as a folder", want, got)
	}
}
