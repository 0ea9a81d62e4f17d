package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// exampleBlock is the lines of one command's Example, or of one ```sh block of the
// README, run in order in one world (later lines may use files earlier ones wrote).
type exampleBlock struct {
	where string
	lines []string
}

// helpExamples walks the command tree, hidden commands included.
func helpExamples() []exampleBlock {
	root := newRootCmd(context.Background(), genericiooptions.NewTestIOStreamsDiscard())
	var out []exampleBlock
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if lines := commandLines(c.Example); len(lines) > 0 {
			out = append(out, exampleBlock{where: c.CommandPath() + " --help", lines: lines})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// readmeExamples are the ```sh blocks of the README.
func readmeExamples(t *testing.T) []exampleBlock {
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []exampleBlock
	in, next := false, true
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case !in && strings.TrimSpace(l) == "```sh":
			in, next = true, true
		case in && strings.TrimSpace(l) == "```":
			in = false
		case in && strings.TrimSpace(l) == "":
			next = true // a paragraph is one recipe: it starts from a fresh world
		case in:
			if lines := commandLines(l); len(lines) > 0 {
				if next || len(out) == 0 {
					out = append(out, exampleBlock{where: "README.md:" + strconv.Itoa(n)})
					next = false
				}
				out[len(out)-1].lines = append(out[len(out)-1].lines, lines...)
			}
		}
	}
	return out
}

// commandLines drops comments and blank lines.
func commandLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// exampleExits is how each example line exits in the example world (routes-missing:
// NET-ROUTES fails on win-1), as the help's exit codes say: 0 nothing failed (or the
// person quit the screen), 1 findings, 2 usage, 3 nothing judged. A line missing here
// fails the test: a new example says what it is expected to do.
func exampleExits() map[string]int {
	return map[string]int{
		// wintroubleshoot --help
		"wintroubleshoot": 0,
		// probes --help, version --help
		"wintroubleshoot probes --evidence": 0,
		"wintroubleshoot version":           0,
		"wintroubleshoot version -o json":   0,
		"WTS_PASSWORD=... wintroubleshoot --report --node-user Administrator -o markdown": 1,
		"wintroubleshoot analyze ./evidence-folder":                                       1,
		// routes-missing has no Linux workers: --linux-nodes finds none and judges win-1
		"WTS_PASSWORD=... wintroubleshoot --report --linux-nodes --ssh-key ~/.ssh/id_ed25519": 1,
		"wintroubleshoot --report --from ./evidence-folder -o json":                           1,
		// analyze
		"wintroubleshoot analyze ./case-1234":                             1,
		"wintroubleshoot analyze snapshot.tar.gz -o markdown > ticket.md": 1,
		"wintroubleshoot analyze ./case-1234 --node win-1 -o json":        1,
		// demo (the screen, quit at once; or the report of a fleet with failures)
		"wintroubleshoot demo":                                                    0,
		"wintroubleshoot demo --report -o markdown":                               1,
		"wintroubleshoot demo --scenario podcidr-empty --scenario routes-missing": 0,
		// diff: snapshot, fix, snapshot, compare
		"wintroubleshoot snapshot before.tar.gz":            1,
		"wintroubleshoot fix NET-ROUTES --node win-1 --yes": 0,
		"wintroubleshoot snapshot after.tar.gz":             0,
		"wintroubleshoot diff before.tar.gz after.tar.gz":   1,
		// fakenode (hidden)
		"export WTS_PASSWORD=demo-only": 0,
		"wintroubleshoot fakenode --scenario routes-missing --listen 127.0.0.1:5986 --https --cert-out /tmp/node.pem &": 0,
		// The fake node of this world listens elsewhere: no node answers, nothing judged.
		"wintroubleshoot --report --node win-1=127.0.0.1:5986 --winrm-ca-file /tmp/node.pem --winrm-auth basic": 3,
		// --fleet: 100 copies on ports the system picks, stopped once listed
		"wintroubleshoot fakenode --scenario healthy-sdn-l2bridge-docker --fleet 100 --latency 20ms": 0,
		// fix
		"wintroubleshoot fix SVC-KUBELET --node win-1 --dry-run":       0,
		"WTS_PASSWORD=... wintroubleshoot fix NET-ROUTES --node win-1": 0,
		// SVC-REBOOT offers delete-node only for a node NotReady after a reboot; win-1 here
		// merely has unregistered services, so the choice is refused as bad input.
		"wintroubleshoot fix SVC-REBOOT --node win-1 --choice delete-node --yes --confirm win-1": 2,
		// HNS-NETWORK passes on win-1 here: "nothing to fix" is not an error.
		"wintroubleshoot fix HNS-NETWORK --node win-1 --force": 0,
		// compare: win-1 (routes missing) against win-2, the healthy node of its pool
		// (live), or against a healthy node's bundle: the routes differ.
		"WTS_PASSWORD=... wintroubleshoot compare win-1 win-2 --node-user Administrator":   1,
		"wintroubleshoot compare win-1 win-1 --from healthy.tar.gz --from-b before.tar.gz": 1,
		// probes, redact, snapshot
		"wintroubleshoot probes":             0,
		"wintroubleshoot probes -o markdown": 0,
		// import: a pasted transcript into a folder, then judged; or judged at once
		"wintroubleshoot import ticket-1234.txt --out ./ticket-1234 --node win-1":                       0,
		"wintroubleshoot analyze ./ticket-1234":                                                         1, // the pasted table shows kubelet and kube-proxy Stopped: the state judges, the rest skips
		"wintroubleshoot import ticket-1234.txt --analyze":                                              1, // the same findings as analyze of the imported folder
		"wintroubleshoot redact snap.tar.gz snap-shared.tar.gz --redact-rules our-hostnames.yaml":       0,
		"WTS_PASSWORD=... wintroubleshoot snapshot case-1234.tar.gz":                                    1,
		"wintroubleshoot snapshot snap.tar.gz --since 72h --max-log-size 50Mi --redact-rules ours.yaml": 1,
		// README
		"go run ./cmd/wintroubleshoot":                                                                                0,
		"WTS_PASSWORD=... wintroubleshoot --node-user Administrator":                                                  0,
		"wintroubleshoot --report -o markdown > ticket.md":                                                            1,
		"wintroubleshoot --report -o json | jq .summary":                                                              0, // jq's exit, as in sh
		"wintroubleshoot --report -o junit > windows-nodes.xml":                                                       1,
		"wintroubleshoot --report --node win-1=ssh://10.0.0.5 --node win-2=10.0.0.6:5986 --ssh-key ~/.ssh/id_ed25519": 1,
		// Elsewhere than on Windows the local transport is refused before anything
		// connects: there is no Windows node here to read (2, a bad flag for this machine).
		"wintroubleshoot.exe --report --transport local --node win-1=local://localhost":                                                 2,
		"wintroubleshoot --report --password-secret user-cluster-1/windows-node-password --password-secret-kubeconfig admin.kubeconfig": 1,
		"wintroubleshoot fix NET-ROUTES --node win-1 --dry-run":                                                                         0,
		"wintroubleshoot fix NET-ROUTES --node win-1":                                                                                   0,
		"wintroubleshoot snapshot case-1234.tar.gz":                                                                                     1,
		"wintroubleshoot analyze case-1234.tar.gz":                                                                                      1,
		"WTS_PASSWORD=x wintroubleshoot fakenode --scenario routes-missing --listen 127.0.0.1:5985 --allow-unencrypted":                 0,
	}
}

// notRunnable are README lines that are not examples of this program, and why.
func notRunnable() map[string]string {
	return map[string]string{
		"bash .ci/test.sh": "the test suite itself",
	}
}

// TestExamples runs every example of every command's --help and every command of the
// README, in process, in the example world, and checks each exits as documented.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("starts fake nodes and the test cluster")
	}
	cl := startExampleCluster(t)
	want := exampleExits()
	blocks := append(helpExamples(), readmeExamples(t)...)
	ran := 0
	for _, b := range blocks {
		t.Run(b.where, func(t *testing.T) {
			w := newExampleWorld(t, cl)
			t.Chdir(w.dir)
			for _, line := range b.lines {
				if why, ok := notRunnable()[line]; ok {
					t.Logf("not run: %s (%s)", line, why)
					continue
				}
				code, ok := want[line]
				if !ok {
					t.Errorf("%s: no expected exit code for %q: add it to exampleExits", b.where, line)
					continue
				}
				if cl == nil && needsCluster(line) {
					// Later lines of a block may read what this one writes.
					t.Logf("skipped without the test cluster (WTS_KUBEAPI_BIN), with the rest of its block: %s", line)
					break
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				got, runs := w.runLine(t, ctx, line)
				cancel()
				ran++
				if got != code {
					last := runs[len(runs)-1]
					t.Errorf("%s: %s\nexit %d, want %d\nstderr: %s\nstdout: %.1500s", b.where, line, got, code, last.stderr, last.stdout)
				}
			}
		})
	}
	if ran == 0 {
		t.Fatal("no example ran")
	}
}

// needsCluster: the line judges live nodes (the screen, --report, snapshot, fix). Its
// documented outcome assumes the cluster's evidence too: without it the cross-layer
// probes skip, and a broken node can look healthy.
func needsCluster(line string) bool {
	cmds, err := parseLine(line)
	if err != nil {
		return false
	}
	for _, c := range cmds {
		args := c.args
		if c.export || slices.Contains(args, "--from") || slices.Contains(args, "--help") {
			continue
		}
		if len(args) == 0 || strings.HasPrefix(args[0], "-") || args[0] == "snapshot" || args[0] == "fix" || args[0] == "compare" {
			return true
		}
	}
	return false
}

// adapt points an example at the example world: ~ and /tmp live in the world's folder,
// example addresses at the fake nodes, and a command that reaches the cluster's node
// without saying how gets the fake node's address and certificate, as a reader's
// cluster would have a reachable node with a trusted certificate.
func (w *exampleWorld) adapt(args []string) []string {
	out := make([]string, 0, len(args)+4)
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "~/"):
			a = filepath.Join(w.home, a[2:])
		case strings.HasPrefix(a, "/tmp/"):
			a = filepath.Join(w.dir, a[len("/tmp/"):])
		}
		if name, addr, ok := strings.Cut(a, "="); ok && !strings.HasPrefix(a, "-") {
			scheme, hostport, hasScheme := strings.Cut(addr, "://")
			if !hasScheme {
				scheme, hostport = "", addr
			}
			if real, ok := w.addrs[hostport]; ok {
				hostport = real
			}
			if hasScheme {
				a = name + "=" + scheme + "://" + hostport
			} else {
				a = name + "=" + hostport
			}
		}
		out = append(out, a)
	}
	if w.winrm == "" || slices.Contains(out, "--help") {
		return out
	}
	sub := ""
	if len(out) > 0 && !strings.HasPrefix(out[0], "-") {
		sub = out[0]
	}
	if sub == "compare" && w.peer != "" && !slices.Contains(out, "--from") {
		// Both nodes of the pool, as the reader's cluster would reach them.
		return append(out, "--node", "win-1=winrm-https://"+w.winrm, "--node", "win-2=winrm-https://"+w.peer, "--winrm-ca-file", w.peerCA)
	}
	if (sub != "" || slices.Contains(out, "--from")) && sub != "snapshot" && sub != "fix" {
		return out // does not reach the nodes
	}
	if sub == "fix" {
		for i := range out {
			if out[i] == "--node" && i+1 < len(out) && !strings.Contains(out[i+1], "=") {
				out[i+1] += "=winrm-https://" + w.winrm
			}
		}
	} else if !slices.Contains(out, "--node") {
		out = append(out, "--node", "win-1=winrm-https://"+w.winrm)
	}
	if !slices.Contains(out, "--winrm-ca-file") {
		out = append(out, "--winrm-ca-file", w.caFile)
	}
	return out
}

// interactive: the line opens the screen.
func interactive(args []string) bool {
	if slices.Contains(args, "--report") || slices.Contains(args, "--help") {
		return false
	}
	return len(args) == 0 || strings.HasPrefix(args[0], "-") || args[0] == "demo"
}

// prompts: the line asks for confirmation on the terminal.
func prompts(args []string) bool {
	return len(args) > 0 && args[0] == "fix" && !slices.Contains(args, "--yes") && !slices.Contains(args, "--dry-run")
}

// isServer: the line starts a fake node, which serves until stopped.
func isServer(args []string) bool { return len(args) > 0 && args[0] == "fakenode" }

// lockedBuffer is an output a server writes from its goroutine while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
