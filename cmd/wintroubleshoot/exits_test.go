package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// noClusterHere makes the run find no kubeconfig at all (no flag, no $KUBECONFIG, an
// empty home): the "no cluster at hand" case, where a --node list is probed alone. A
// --kubeconfig naming a missing file is not that case: it is bad input (exit 2).
func noClusterHere(t *testing.T) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
}

// exitRun is one run of the program and what its stderr must say.
type exitRun struct {
	args   []string
	stderr string   // a substring; "" checks nothing
	stdin  *os.File // a terminal to answer on; nil: none
}

// exitCases are the README's exit table, row by row: each case's name is the row's
// "case" column, and every run of it must end with the row's code.
func exitCases(t *testing.T) map[string]func(t *testing.T) []exitRun {
	return map[string]func(t *testing.T) []exitRun{
		"ok": func(t *testing.T) []exitRun {
			return []exitRun{{args: []string{"analyze", scenarioDir(t, "healthy-containerd-overlay")}}}
		},
		"findings": func(t *testing.T) []exitRun {
			return []exitRun{{args: []string{"analyze", scenarioDir(t, "routes-missing")}}}
		},
		"bad-flag": func(t *testing.T) []exitRun {
			noClusterHere(t)
			node := []string{"--report", "--node", "win-1=192.0.2.1"}
			runs := []exitRun{
				{args: []string{"--report", "-o", "xml"}, stderr: "--output"},
				{args: []string{"--report", "--fail-on", "pass"}, stderr: "--fail-on"},
				{args: []string{"--report", "--transport", "telnet"}, stderr: "--transport"},
				{args: append([]string{"--winrm-auth", "kerberos"}, node...), stderr: "--winrm-auth"},
				{args: append([]string{"--timeout", "-5s"}, node...), stderr: "--timeout"},
				{args: append([]string{"snapshot", filepath.Join(t.TempDir(), "s.tar.gz"), "--timeout", "0s"}, node[1:]...), stderr: "--timeout"},
			}
			if runtime.GOOS != "windows" {
				// The local transport reads this machine: off Windows there is no node to read.
				runs = append(runs, exitRun{args: []string{"--report", "--transport", "local", "--node", "win-1=local://localhost"}, stderr: "must be the Windows node"})
			}
			return runs
		},
		"bad-node": func(t *testing.T) []exitRun {
			noClusterHere(t)
			return []exitRun{
				{args: []string{"--report", "--node", "a/b=10.0.0.1"}, stderr: `--node "a/b=10.0.0.1"`},
				{args: []string{"--report", "--node", "a/b"}, stderr: "want NAME=HOST"},
				{args: []string{"--report", "--node", "a=ssh://"}, stderr: "no host"},
				{args: []string{"--report", "--node", "a=:5986"}, stderr: "no host"},
				{args: []string{"--report", "--node", "Win_1=10.0.0.1"}, stderr: "Win_1"},
				// Before, the second address silently won (a fix meant for A ran on B).
				{args: []string{"--report", "--node", "w=192.0.2.1", "--node", "w=192.0.2.2"}, stderr: "--node w given twice"},
			}
		},
		"bad-key-file": func(t *testing.T) []exitRun {
			noClusterHere(t)
			dir := t.TempDir()
			notPEM := filepath.Join(dir, "ca.pem")
			os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600)
			node := []string{"--report", "--node", "win-1=192.0.2.1"}
			return []exitRun{
				{args: append([]string{"--winrm-ca-file", filepath.Join(dir, "missing.pem")}, node...), stderr: "--winrm-ca-file"},
				{args: append([]string{"--winrm-ca-file", notPEM}, node...), stderr: "no PEM certificate"},
				{args: append([]string{"--ssh-key", notPEM, "--transport", "ssh"}, node...), stderr: "not a private key"},
				{args: append([]string{"--ssh-key", filepath.Join(dir, "id_none")}, node...), stderr: "--ssh-key"},
			}
		},
		"bad-kubeconfig": func(t *testing.T) []exitRun {
			t.Setenv("KUBECONFIG", "")
			dir := t.TempDir()
			malformed := filepath.Join(dir, "bad.yaml")
			os.WriteFile(malformed, []byte("apiVersion: v1\nclusters: {this is: [not, a kubeconfig\n"), 0o600)
			good := filepath.Join(dir, "good.yaml")
			os.WriteFile(good, []byte(testKubeconfig), 0o600)
			node := []string{"--report", "--node", "win-1=127.0.0.1:1", "--winrm-auth", "basic"}
			t.Setenv("WTS_PASSWORD", "exit-test-pw")
			runs := []exitRun{
				{args: append([]string{"--kubeconfig", filepath.Join(dir, "missing")}, node...), stderr: "missing"},
				{args: append([]string{"--kubeconfig", malformed}, node...)},
				{args: append([]string{"--kubeconfig", good, "--context", "tpyo"}, node...), stderr: "tpyo"},
			}
			// $KUBECONFIG naming a file that is not there is the same mistake as the flag.
			t.Setenv("KUBECONFIG", filepath.Join(dir, "gone.yaml"))
			runs = append(runs, exitRun{args: node, stderr: "gone.yaml"})
			return runs
		},
		"bad-evidence": func(t *testing.T) []exitRun {
			return []exitRun{
				{args: []string{"analyze", filepath.Join(t.TempDir(), "nope")}},
				{args: []string{"analyze", t.TempDir()}, stderr: "no node evidence"},
			}
		},
		"refused-fix": func(t *testing.T) []exitRun {
			fake, access := fakeFixNode(t, "kubelet-service-stopped")
			// A state "directory" that is a file: the log's folder cannot be made, for
			// root as for anyone.
			state := filepath.Join(t.TempDir(), "state")
			os.WriteFile(state, nil, 0o600)
			t.Setenv("XDG_STATE_HOME", state)
			t.Cleanup(func() {
				if fixCalls(fake) != 0 {
					t.Error("a fix ran although its audit log could not be written")
				}
			})
			return []exitRun{{args: append([]string{"fix", "SVC-KUBELET", "--yes"}, access...),
				stderr: "cannot write the audit log at " + filepath.Join(state, "wintroubleshoot", "audit.jsonl")}}
		},
		"declined-fix": func(t *testing.T) []exitRun {
			fake, access := fakeFixNode(t, "kubelet-service-stopped")
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal to answer on: %v", err)
			}
			t.Cleanup(func() { ptmx.Close(); tty.Close() })
			ptmx.Write([]byte("n\n")) // the person reads the preview and says no
			t.Cleanup(func() {
				if fixCalls(fake) != 0 {
					t.Error("a declined fix ran")
				}
			})
			_, manual := fakeFixNode(t, "host-name-too-long")
			return []exitRun{
				{args: append([]string{"fix", "SVC-KUBELET"}, access...), stdin: tty},
				{args: append([]string{"fix", "HOST-NAME"}, manual...)},
			}
		},
		"no-cluster": func(t *testing.T) []exitRun {
			noClusterHere(t)
			return []exitRun{{args: []string{"--report"}, stderr: "--node NAME=HOST"}}
		},
		"unreachable": func(t *testing.T) []exitRun {
			noClusterHere(t)
			t.Setenv("WTS_PASSWORD", "exit-test-pw")
			nodes := []string{"--transport", "winrm", "--winrm-auth", "basic", "--winrm-allow-basic-over-http", "--node", "win-1=127.0.0.1:1", "--node", "win-2=127.0.0.1:1"}
			return []exitRun{
				{args: append([]string{"--report"}, nodes...), stderr: "none of the 2 nodes could be reached"},
				{args: append([]string{"snapshot", filepath.Join(t.TempDir(), "s.tar.gz")}, nodes...), stderr: "none of the 2 nodes could be reached"},
			}
		},
		"interrupted": func(t *testing.T) []exitRun {
			return []exitRun{{args: []string{"analyze", scenarioDir(t, "routes-missing")}, stderr: "interrupted"}}
		},
	}
}

// testKubeconfig is a well-formed kubeconfig whose server nobody answers on.
const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: "kubeconfig-token-not-real"}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`

// linkedOutFolder is a scenario folder whose host.json is a link to a file outside it
// (a stand-in for ~/.kube/config).
func linkedOutFolder(t *testing.T) string {
	t.Helper()
	dir := scenarioDir(t, "routes-missing")
	secret := filepath.Join(t.TempDir(), "config")
	os.WriteFile(secret, []byte("token: linked-out-secret-token\n"), 0o600)
	hosts, _ := filepath.Glob(filepath.Join(dir, "nodes", "*", "host.json"))
	if len(hosts) == 0 {
		t.Fatal("the scenario has no host.json")
	}
	os.Remove(hosts[0])
	if err := os.Symlink(secret, hosts[0]); err != nil {
		t.Skip("no symlinks here:", err)
	}
	return dir
}

// readmeExitRows reads the README's exit table: case name to code.
func readmeExitRows(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile(`^\| (\d+) \| ([a-z-]+) \|`)
	rows, in := map[string]int{}, false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case line == "### Exit codes":
			in = true
		case in && strings.HasPrefix(line, "#"):
			in = false
		case in:
			if m := row.FindStringSubmatch(line); m != nil {
				code, _ := strconv.Atoi(m[1])
				rows[m[2]] = code
			}
		}
	}
	if len(rows) == 0 {
		t.Fatal("README.md has no exit table under ### Exit codes")
	}
	return rows
}

// TestExitTable runs every row of the README's exit table: the two cannot drift, since
// a row without a case and a case without a row both fail.
func TestExitTable(t *testing.T) {
	rows, cases := readmeExitRows(t), exitCases(t)
	for name := range cases {
		if _, ok := rows[name]; !ok {
			t.Errorf("case %q is not a row of README.md's exit table", name)
		}
	}
	for name, code := range rows {
		t.Run(name, func(t *testing.T) {
			mk, ok := cases[name]
			if !ok {
				t.Fatalf("README.md's exit row %q (exit %d) has no test case", name, code)
			}
			for _, r := range mk(t) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				if name == "interrupted" {
					cancel() // Ctrl-C before the work: nothing may be printed
				}
				streams, _, out, errOut := genericiooptions.NewTestIOStreams()
				if r.stdin != nil {
					streams.In = r.stdin
				}
				got := Run(ctx, streams, r.args)
				cancel()
				if got != code {
					t.Errorf("%v: exit %d, want %d\nstderr: %s\nstdout: %.800s", r.args, got, code, errOut, out)
				}
				if r.stderr != "" && !strings.Contains(errOut.String(), r.stderr) {
					t.Errorf("%v: stderr does not say %q:\n%s", r.args, r.stderr, errOut)
				}
				if code == 2 && strings.Contains(r.args[0], "snapshot") {
					if left, _ := filepath.Glob(filepath.Join(filepath.Dir(r.args[1]), "*")); len(left) > 0 {
						t.Errorf("%v: a usage error left %v behind", r.args, left)
					}
				}
				if name == "interrupted" && out.Len() > 0 {
					t.Errorf("%v: an interrupted run printed a report:\n%.400s", r.args, out)
				}
			}
		})
	}
}

// TestNoAuditRunsLoudly: --no-audit is the explicit way past an unwritable audit log:
// the fix runs, and stderr says nothing records it.
func TestNoAuditRunsLoudly(t *testing.T) {
	fake, access := fakeFixNode(t, "kubelet-service-stopped")
	state := filepath.Join(t.TempDir(), "state")
	os.WriteFile(state, nil, 0o600)
	t.Setenv("XDG_STATE_HOME", state)
	code, out, errOut := run(t, append([]string{"fix", "SVC-KUBELET", "--yes", "--no-audit"}, access...)...)
	if code != 0 || fixCalls(fake) == 0 {
		t.Fatalf("exit %d, %d fix calls\n%s\n%s", code, fixCalls(fake), out, errOut)
	}
	if !strings.Contains(errOut, "warning: --no-audit") {
		t.Errorf("no loud warning: %s", errOut)
	}
}
