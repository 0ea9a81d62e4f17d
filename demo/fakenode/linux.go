package fakenode

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// LinuxNode is a fake Linux worker: it answers the shell sweep (collect/scripts
// LinuxSweep, sent to `sh -s`) from a scenario's nodes/<node>/ files, as the Windows fake
// answers the PowerShell sweep, and a Linux fix by recording it and serving the
// scenario's after/<fix>/ state. Serve it with StartSSH and DefaultShell "sh"
// (StartLinuxSSH). It is as strict as sh: anything but a Linux sweep on stdin gets the
// errors dash prints for it and no frame.
type LinuxNode struct {
	*Node // the scenario state: files, fix overlays, the command log
}

// NewLinuxNode makes a fake Linux node from a scenario; only Scenario, Node and Faults of
// opts apply.
func NewLinuxNode(opts NodeOptions) *LinuxNode { return &LinuxNode{Node: NewNode(opts)} }

// IsLinuxNode says whether a scenario's node is a Linux one: its os.json says so.
func IsLinuxNode(scenario fs.FS, node string) bool {
	b, err := fs.ReadFile(scenario, path.Join("nodes", node, "os.json"))
	if err != nil {
		return false
	}
	var os struct{ Kind string }
	return json.Unmarshal(b, &os) == nil && os.Kind == "linux"
}

// Respond implements Responder.
func (n *LinuxNode) Respond(ctx context.Context, commandLine string, stdin []byte) Reply {
	var out []byte
	r := n.RespondStream(ctx, commandLine, stdin, func(b []byte) { out = append(out, b...) })
	r.Stdout = append(out, r.Stdout...)
	return r
}

// ReadsStdin implements StdinReader: the shell reads its script from stdin.
func (n *LinuxNode) ReadsStdin(string) bool { return true }

// RespondStream implements Streamer: stdin is the script `sh -s` runs; each call's frame
// goes out as the call ends.
func (n *LinuxNode) RespondStream(ctx context.Context, commandLine string, stdin []byte, stdout func([]byte)) Reply {
	script := string(stdin)
	rec := Recorded{CommandLine: commandLine, Script: script}
	defer func() {
		n.mu.Lock()
		n.log = append(n.log, rec)
		n.mu.Unlock()
	}()
	calls, ok, err := scripts.ParseLinuxSweep(script)
	if err != nil {
		return Reply{Stderr: []byte("sh: " + err.Error() + "\n"), ExitCode: 2}
	}
	if !ok {
		return dashErrors(script)
	}
	for _, c := range calls {
		rec.Calls = append(rec.Calls, c.Name)
		rec.Params = append(rec.Params, c.Params)
	}
	hang := n.opts.Faults.Get().HangSnippets
	for _, c := range calls {
		if ctx.Err() != nil {
			return Reply{} // the client gave up: the shell is gone
		}
		r, finished := n.linuxCall(ctx, c, slices.Contains(hang, c.Name))
		if !finished {
			return Reply{}
		}
		stdout(scripts.FrameOne(r))
	}
	stdout(scripts.FrameEnd(len(calls)))
	return Reply{}
}

// linuxCall answers one wts_call: a hung command is stopped at its limit as timeout(1)
// stops it (exit 124, the prelude's words), else the scenario's file or fix.
func (n *LinuxNode) linuxCall(ctx context.Context, c scripts.Call, hangs bool) (scripts.Result, bool) {
	if hangs {
		if c.Limit <= 0 {
			<-ctx.Done()
			return scripts.Result{}, false
		}
		t := time.NewTimer(c.Limit)
		defer t.Stop()
		select {
		case <-t.C:
			command, _ := scripts.LinuxCommand(c.Name)
			return scripts.Result{Name: c.Name, Exit: 124,
				Stderr: fmt.Appendf(nil, "timed out after %d s (%s did not answer)\n", int(c.Limit/time.Second), command)}, true
		case <-ctx.Done():
			return scripts.Result{}, false
		}
	}
	r := n.call(c)
	if strings.HasPrefix(c.Name, scripts.FixPrefix) && r.Exit == 0 {
		// ip route add prints nothing when it works; a recorded output.txt says otherwise.
		if _, err := fs.Stat(n.opts.Scenario, path.Join("after", c.Name, "output.txt")); err != nil {
			r.Stdout = nil
		}
	}
	return r, true
}

// dashErrors is what dash prints for a script that is not a Linux sweep (the PowerShell
// sweep sent to sh by mistake): "not found" for each command word, until the first
// "(" outside quotes, a syntax error that ends the script with exit 2. Assignments and
// expansions ($x) are dropped as the shell drops them; multi-line quotes are not modelled.
func dashErrors(script string) Reply {
	var errs strings.Builder
	sc := bufio.NewScanner(strings.NewReader(script))
	sc.Buffer(nil, len(script)+1)
	exit := 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if i := strings.Index(text, "("); i >= 0 && !strings.Contains(text[:i], "'") && !strings.Contains(text[:i], `"`) && !strings.HasSuffix(text[:i], "$") {
			fmt.Fprintf(&errs, "sh: %d: Syntax error: \"(\" unexpected\n", line)
			return Reply{Stderr: []byte(errs.String()), ExitCode: 2}
		}
		for cmd := range strings.SplitSeq(text, ";") {
			for _, w := range strings.Fields(cmd) {
				if strings.HasPrefix(w, "$") || strings.Contains(w, "=") && !strings.HasPrefix(w, "=") {
					continue // an expansion to nothing, or an assignment
				}
				fmt.Fprintf(&errs, "sh: %d: %s: not found\n", line, strings.Trim(w, `'"`))
				exit = 127
				break
			}
		}
	}
	return Reply{Stderr: []byte(errs.String()), ExitCode: exit}
}

// linuxShell is SSHOptions.DefaultShell of a Linux node: sshd runs every command as
// `sh -c COMMAND` (the account's login shell; /bin/sh is dash on Debian and Ubuntu).
const linuxShell = "sh"

// linuxServerVersion is what a Debian 12 node's sshd announces.
const linuxServerVersion = "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3"

// posixShell decides what `sh -c command` does, as dash would: respond is true when it
// starts a shell reading its script from stdin (sh -s, or the same through sudo -n),
// which the Responder answers; otherwise reply is the shell's own answer. Only simple
// commands are modelled; a program it does not know is "not found", exit 127, so a
// PowerShell command line sent to a Linux node fails exactly as on a real one.
func (s *SSHServer) posixShell(command string) (respond bool, reply Reply) {
	words := sshSplitWords(command, true)
	if len(words) == 0 {
		return false, Reply{}
	}
	// sudo -n runs the rest as root (the fake's account may use sudo without a password).
	if words[0] == "sudo" && len(words) > 2 && words[1] == "-n" {
		words = words[2:]
	}
	prog := words[0]
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		prog = prog[i+1:]
	}
	switch prog {
	case "sh", "dash", "bash":
		if len(words) == 2 && words[1] == "-s" {
			return true, Reply{}
		}
		return false, Reply{Stderr: []byte("fake Linux node: only `sh -s` (the script on stdin) is modelled, not " + command + "\n"), ExitCode: 2}
	case "hostname":
		return false, Reply{Stdout: []byte(s.opts.Hostname + "\n")}
	case "uname":
		if len(words) == 2 && words[1] == "-n" {
			return false, Reply{Stdout: []byte(s.opts.Hostname + "\n")}
		}
		if len(words) == 1 || words[1] == "-s" {
			return false, Reply{Stdout: []byte("Linux\n")}
		}
	case "echo":
		return false, Reply{Stdout: []byte(strings.Join(words[1:], " ") + "\n")}
	case "true":
		return false, Reply{}
	case "false":
		return false, Reply{ExitCode: 1}
	}
	return false, Reply{Stderr: []byte(fmt.Sprintf("sh: 1: %s: not found\n", words[0])), ExitCode: 127}
}

// StartLinuxSSH serves a fake Linux node over real SSH on loopback: sh as the shell,
// Debian's sshd banner, and the node's name as its hostname unless opts say otherwise.
func StartLinuxSSH(ctx context.Context, n *LinuxNode, opts SSHOptions) (*SSHServer, error) {
	opts.DefaultShell = linuxShell
	if opts.Hostname == "" {
		opts.Hostname = n.opts.Node
	}
	return StartSSH(ctx, n, opts)
}

// StartMixedFleet starts a fleet whose scenarios may hold Linux workers: the Windows
// nodes as StartFleet starts them, and each Linux node (IsLinuxNode) over SSH as root,
// authenticated with an ed25519 key the fleet makes and keeps in its folder (known_hosts
// verified, as for the Windows nodes). A Linux member's Fake is its LinuxNode's state.
func StartMixedFleet(ctx context.Context, scs []FleetScenario) (*Fleet, error) {
	var win, lin []FleetScenario
	for _, sc := range scs {
		if IsLinuxNode(sc.FS, sc.Node) {
			lin = append(lin, sc)
		} else {
			win = append(win, sc)
		}
	}
	f, err := StartFleet(ctx, win)
	if err != nil {
		return nil, err
	}
	if len(lin) == 0 {
		return f, nil
	}
	if err := f.addLinux(ctx, lin); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// addLinux starts the Linux members, with their key and known_hosts in the fleet folder.
func (f *Fleet) addLinux(ctx context.Context, scs []FleetScenario) error {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("making the Linux nodes' key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "wintroubleshoot fake fleet")
	if err != nil {
		return fmt.Errorf("encoding the Linux nodes' key: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return err
	}
	keyFile, khFile := filepath.Join(f.Dir, "linux_id_ed25519"), filepath.Join(f.Dir, "linux_known_hosts")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		return fmt.Errorf("writing the Linux nodes' key: %w", err)
	}
	var known []byte
	for _, sc := range scs {
		ln := NewLinuxNode(NodeOptions{Scenario: sc.FS, Node: sc.Node})
		srv, err := StartLinuxSSH(ctx, ln, SSHOptions{User: "root", AuthorizedKeys: []ssh.PublicKey{sshPub}, HostKeySeed: sc.Name + "/" + sc.Node})
		if err != nil {
			return fmt.Errorf("starting the fake Linux node %s of %s: %w", sc.Node, sc.Name, err)
		}
		known = append(known, knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.HostKey())+"\n"...)
		f.Members = append(f.Members, &Member{Scenario: sc.Name, Node: sc.Node, FS: sc.FS, Fake: ln.Node, SSH: srv,
			Config: transport.Config{Kind: transport.SSH, Host: "127.0.0.1", Port: port(srv.Addr()), User: "root", KeyFile: keyFile, KnownHosts: khFile}})
	}
	if err := os.WriteFile(khFile, known, 0o600); err != nil {
		return fmt.Errorf("writing the Linux nodes' known_hosts: %w", err)
	}
	return nil
}
