package fakenode

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	wtssweep "github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	wtsssh "github.com/wintroubleshoot/wintroubleshoot/collect/transport/ssh"
)

// linuxScenario is a Linux worker's recorded outputs, with a fix that adds its missing
// route to win-1's pods.
func linuxScenario() fstest.MapFS {
	node := "nodes/node-1/"
	return fstest.MapFS{
		node + "os.json":                                              {Data: []byte(`{"Kind":"linux","Hostname":"node-1","Kernel":"6.1.0-18-amd64","OSImage":"Debian GNU/Linux 12 (bookworm)","CollectedAt":"2026-12-01T10:00:00Z"}` + "\n")},
		node + "linux-ip-route.json":                                  {Data: []byte(`[{"dst":"default","gateway":"10.0.0.1","dev":"eth0","flags":[]}]` + "\n")},
		node + "linux-swaps.txt":                                      {Data: []byte("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")},
		node + "linux-flannel-subnet.env.err":                         {Data: []byte("exit 1\nhead: cannot open '/run/flannel/subnet.env' for reading: No such file or directory\n")},
		"after/fix-linux-add-routes/nodes/node-1/linux-ip-route.json": {Data: []byte(`[{"dst":"default","gateway":"10.0.0.1","dev":"eth0","flags":[]},{"dst":"10.244.5.0/24","gateway":"10.0.0.21","dev":"eth0","flags":[]}]` + "\n")},
	}
}

// startLinux serves the scenario's node-1 over SSH, root with a key, and returns the
// real transport to it (host key verified through a known_hosts file).
func startLinux(t *testing.T, fsys fstest.MapFS, faults *Faults) (*LinuxNode, transport.Transport) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, _ := ssh.NewPublicKey(pub)
	n := NewLinuxNode(NodeOptions{Scenario: fsys, Node: "node-1", Faults: faults})
	srv, err := StartLinuxSSH(t.Context(), n, SSHOptions{User: "root", AuthorizedKeys: []ssh.PublicKey{sshPub}, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	dir := t.TempDir()
	block, _ := ssh.MarshalPrivateKey(priv, "")
	key, kh := filepath.Join(dir, "id"), filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(key, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.HostKey()) + "\n"
	if err := os.WriteFile(kh, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := wtsssh.New(transport.Config{Kind: transport.SSH, Host: "127.0.0.1", Port: port(srv.Addr()), User: "root", KeyFile: key, KnownHosts: kh})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return n, tr
}

// TestLinuxNodeAnswersTheShellSweep: over real SSH the shell sweep gets the scenario's
// files back verbatim, a recorded failure as its .err, and a file the scenario lacks as
// a failure naming it; the node saw `sh -s` and the script.
func TestLinuxNodeAnswersTheShellSweep(t *testing.T) {
	fsys := linuxScenario()
	n, tr := startLinux(t, fsys, nil)
	names := append(scripts.LinuxFiles(), "host.json") // a Windows file is never asked of it
	files, err := wtssweep.Run(t.Context(), tr, wtssweep.Request{Names: names, OS: evidence.Linux, User: "root"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"os.json", "linux-ip-route.json", "linux-swaps.txt"} {
		if want := fsys["nodes/node-1/"+name].Data; !bytes.Equal(files[name], want) {
			t.Errorf("%s = %q, want %q", name, files[name], want)
		}
	}
	if got := string(files["linux-flannel-subnet.env.err"]); !strings.HasPrefix(got, "exit 1\nhead: cannot open") {
		t.Errorf("flannel .err = %q", got)
	}
	if got := string(files["linux-cni.txt.err"]); !strings.Contains(got, "no evidence linux-cni.txt") {
		t.Errorf("cni .err = %q", got)
	}
	if _, ok := files["host.json"]; ok {
		t.Error("the Linux sweep asked for host.json")
	}
	cmds := n.Commands()
	if len(cmds) != 1 || cmds[0].CommandLine != "sh -s" || len(cmds[0].Calls) != len(scripts.LinuxFiles()) {
		t.Fatalf("commands %+v", cmds)
	}
}

// TestLinuxNodeRefusesPowerShell: the Windows sweep sent to a Linux node fails as sh
// fails it (powershell.exe not found, exit 127), and the sweep's error says to probe
// the node as Linux; a PowerShell script piped to sh -s gets dash's errors, no frame.
func TestLinuxNodeRefusesPowerShell(t *testing.T) {
	_, tr := startLinux(t, linuxScenario(), nil)
	_, err := wtssweep.Run(t.Context(), tr, wtssweep.Request{Names: []string{"host.json"}})
	if err == nil || !strings.Contains(err.Error(), "sh: 1: powershell.exe: not found") || !strings.Contains(err.Error(), "linux://") {
		t.Errorf("PowerShell to a Linux node: %v", err)
	}
	ps, err := scripts.Sweep([]scripts.Call{{Name: "host.json"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tr.Run(t.Context(), transport.Command{CommandLine: "sh -s", Stdin: []byte(ps)})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 2 || !strings.Contains(string(out.Stderr), `sh: 2: =: not found`) || !strings.Contains(string(out.Stderr), `Syntax error: "(" unexpected`) || len(out.Stdout) != 0 {
		t.Errorf("PowerShell on sh -s: exit %d stdout %q stderr %q", out.ExitCode, out.Stdout, out.Stderr)
	}
}

// TestLinuxNodeFix: a Linux fix arrives as sh with its parameters as data, is recorded,
// and the next sweep serves the scenario's after/ state.
func TestLinuxNodeFix(t *testing.T) {
	fsys := linuxScenario()
	n, tr := startLinux(t, fsys, nil)
	script, err := scripts.LinuxFix(scripts.Call{Name: "fix-linux-add-routes", Params: map[string]any{"Routes": []any{map[string]any{"Prefix": "10.244.5.0/24", "Via": "10.0.0.21"}}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tr.Run(t.Context(), transport.Command{CommandLine: scripts.LinuxCommandLine("root"), Stdin: []byte(script)})
	if err != nil {
		t.Fatal(err)
	}
	results, _, err := scripts.Split(out.Stdout)
	if err != nil || len(results) != 1 || results[0].Failed() || len(results[0].Stdout) != 0 {
		t.Fatalf("fix reply %+v %v", results, err)
	}
	cmds := n.Commands()
	if got := cmds[len(cmds)-1]; len(got.Params) != 1 || got.Params[0]["Routes"] != "10.244.5.0/24\t10.0.0.21" {
		t.Errorf("recorded %+v", got)
	}
	if a := n.Applied(); len(a) != 1 || a[0] != "fix-linux-add-routes" {
		t.Errorf("applied %v", a)
	}
	files, err := wtssweep.Run(t.Context(), tr, wtssweep.Request{Names: []string{"linux-ip-route.json"}, OS: evidence.Linux, User: "root"})
	if err != nil {
		t.Fatal(err)
	}
	if want := fsys["after/fix-linux-add-routes/nodes/node-1/linux-ip-route.json"].Data; !bytes.Equal(files["linux-ip-route.json"], want) {
		t.Errorf("after the fix: %s", files["linux-ip-route.json"])
	}
}

// TestLinuxNodeHungCommand: a command that hangs is stopped at its limit with timeout's
// exit status and the prelude's words; the other calls still answer.
func TestLinuxNodeHungCommand(t *testing.T) {
	faults := &Faults{}
	faults.Set(FaultSet{HangSnippets: []string{"linux-swaps.txt"}})
	_, tr := startLinux(t, linuxScenario(), faults)
	files, err := wtssweep.Run(t.Context(), tr, wtssweep.Request{Names: []string{"linux-swaps.txt", "os.json"}, OS: evidence.Linux, Limit: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(files["linux-swaps.txt.err"]); !strings.HasPrefix(got, "exit 124\ntimed out after 1 s (cat /proc/swaps did not answer)") {
		t.Errorf("hung call: %q", got)
	}
	if len(files["os.json"]) == 0 {
		t.Error("os.json lost behind the hung call")
	}
}

// BenchmarkLinuxSweepOverSSH: one Linux worker's whole shell sweep over real SSH on
// loopback (script built, sent, answered, split into files), the connection reused.
func BenchmarkLinuxSweepOverSSH(b *testing.B) {
	fsys := linuxScenario()
	n := NewLinuxNode(NodeOptions{Scenario: fsys, Node: "node-1"})
	srv, err := StartLinuxSSH(b.Context(), n, SSHOptions{User: "root", Password: "pw"})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	tr, err := wtsssh.New(transport.Config{Kind: transport.SSH, Host: "127.0.0.1", Port: port(srv.Addr()), User: "root", Password: "pw", InsecureIgnoreHostKey: true})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	for b.Loop() {
		if _, err := wtssweep.Run(b.Context(), tr, wtssweep.Request{Names: scripts.LinuxFiles(), OS: evidence.Linux, User: "root"}); err != nil {
			b.Fatal(err)
		}
	}
}
