package fakenode

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

// NodeOptions choose the scenario a fake node answers from.
type NodeOptions struct {
	Scenario fs.FS  // a scenario tree: nodes/<node>/..., after/<fix-script>/nodes/<node>/...
	Node     string // which node of the scenario this fake is
	// CmdletMissing lists snippets that fail as on an old build lacking the cmdlet.
	CmdletMissing []string
	// Garbage answers every command with bytes that are neither UTF-8 nor a sweep reply.
	Garbage bool
	// LanguageMode is PowerShell's language mode on the node; "" is FullLanguage. In
	// ConstrainedLanguage (a WDAC or AppLocker policy) a script reading stdin fails.
	LanguageMode string
	// Faults injects per-snippet faults (FaultSet.HangSnippets); nil: none.
	Faults *Faults
	// HNSModule is where Get-HnsNetwork comes from: "" the built-in HostNetworkingService
	// module (schema v1), or "hns.v2.psm1" (microsoft/SDN's, schema v2 unless the caller
	// passes -Version 1).
	HNSModule string
}

// Recorded is one command the node received.
type Recorded struct {
	CommandLine string
	Script      string   // the PowerShell it ran (decoded), "" for non-PowerShell commands
	Calls       []string // sweep or fix calls, in order
	Params      []map[string]any
}

// Node answers commands from a scenario's evidence. It records every command and its
// evidence changes when a fix runs: a fix script named fix-X overlays the files under the
// scenario's after/fix-X/, so re-collecting shows the fixed state.
type Node struct {
	opts NodeOptions
	mu   sync.Mutex
	log  []Recorded
	// applied fix overlays, most recent last
	applied []string
	// written holds node files a modelled fix changed (node_sandboxes.go); they win
	// over the overlays and the base tree.
	written map[string][]byte
}

// NewNode makes a fake node; it answers once a server is started on it.
func NewNode(opts NodeOptions) *Node { return &Node{opts: opts} }

// Commands returns what the node received so far.
func (n *Node) Commands() []Recorded {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Recorded(nil), n.log...)
}

// Applied lists the fixes that changed the node's state, in order.
func (n *Node) Applied() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.applied...)
}

// Respond implements Responder.
func (n *Node) Respond(ctx context.Context, commandLine string, stdin []byte) Reply {
	var out []byte
	r := n.RespondStream(ctx, commandLine, stdin, func(b []byte) { out = append(out, b...) })
	r.Stdout = append(out, r.Stdout...)
	return r
}

// ReadsStdin implements StdinReader: only the sweep bootstrap and `-Command -` read stdin.
func (n *Node) ReadsStdin(commandLine string) bool {
	_, fromStdin, _ := scriptSource(commandLine)
	return fromStdin
}

// RespondStream implements Streamer: a sweep hands over each call's frame as the call
// ends, as the real script prints them.
func (n *Node) RespondStream(ctx context.Context, commandLine string, stdin []byte, stdout func([]byte)) Reply {
	rec := Recorded{CommandLine: commandLine}
	defer func() {
		n.mu.Lock()
		n.log = append(n.log, rec)
		n.mu.Unlock()
	}()
	if n.opts.Garbage {
		return Reply{Stdout: []byte("\xff\xfe\x00garbage \xc3\x28 not a sweep\r\n"), ExitCode: 0}
	}
	script, ok := powershellScript(commandLine, stdin)
	if !ok {
		return notRecognized(commandLine)
	}
	if r, refused := n.languageMode(commandLine); refused {
		return r
	}
	rec.Script = script
	calls, isSweep, err := scripts.ParseSweep(script)
	if err != nil {
		return psError(err.Error())
	}
	if !isSweep {
		return n.alone(script)
	}
	for _, c := range calls {
		rec.Calls = append(rec.Calls, c.Name)
		rec.Params = append(rec.Params, c.Params)
	}
	faults := n.opts.Faults.Get()
	for _, c := range calls {
		if ctx.Err() != nil {
			return Reply{} // the client gave up: the shell is gone, nothing more is printed
		}
		r, handled := n.strictFix(c, script)
		finished := true
		if !handled {
			r, finished = n.invoke(ctx, c, callSource(script, c.Name), faults)
		}
		if finished {
			r, finished = n.restartCuttingExec(ctx, c, callSource(script, c.Name), r)
		}
		if finished && c.Name == "hns-networks.json" && n.opts.HNSModule == "hns.v2.psm1" && !asksHNSv1(script, c.Name) {
			r.Stdout = hnsV2(r.Stdout)
		}
		if !finished {
			return Reply{}
		}
		stdout(scripts.FrameOne(r))
	}
	stdout(scripts.FrameEnd(len(calls)))
	return Reply{}
}

// powershellScript finds the script a command line runs: -EncodedCommand, with the
// bootstrap meaning "the script is on stdin".
func powershellScript(commandLine string, stdin []byte) (string, bool) {
	encoded, fromStdin, ok := scriptSource(commandLine)
	if fromStdin {
		return string(stdin), true
	}
	return encoded, ok
}

// scriptSource reads a PowerShell command line: the -EncodedCommand script, or fromStdin
// when the script comes on stdin (the bootstrap, or `-Command -`).
func scriptSource(commandLine string) (encoded string, fromStdin, ok bool) {
	lower := strings.ToLower(commandLine)
	if !strings.HasPrefix(strings.TrimSpace(lower), "powershell") {
		return "", false, false
	}
	encodedFlag := regexp.MustCompile(`(?i)\s-(?:e|ec|enc|encodedcommand)\s+([A-Za-z0-9+/=]+)`)
	if m := encodedFlag.FindStringSubmatch(commandLine); m != nil {
		s, err := scripts.DecodeCommand(m[1])
		if err != nil {
			return "", false, false
		}
		return s, s == scripts.BootstrapScript, true
	}
	if strings.HasSuffix(strings.TrimSpace(lower), "-command -") {
		return "", true, true
	}
	return "", false, false
}

// alone answers a snippet sent by itself (pywinrm's run_ps, Ansible, RunPSWithString): the
// same bytes the sweep would frame, unframed.
func (n *Node) alone(script string) Reply {
	want := normalize(script)
	for _, name := range scripts.Snippets() {
		body, _ := scripts.Body(name)
		if normalize(body) == want {
			r := n.callFrom(scripts.Call{Name: name}, script)
			return Reply{Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.Exit}
		}
	}
	return psError(fmt.Sprintf("the fake node has no recorded answer for this script (%d characters)", len(script)))
}

func normalize(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(strings.TrimPrefix(s, "\ufeff"), "\r\n", "\n"))
}

func (n *Node) call(c scripts.Call) scripts.Result {
	if strings.HasPrefix(c.Name, scripts.FixPrefix) {
		return n.fix(c)
	}
	for _, m := range n.opts.CmdletMissing {
		if m == c.Name {
			return scripts.Result{Name: c.Name, Exit: 1, Stderr: []byte(notRecognizedPS(cmdletOf(c.Name)))}
		}
	}
	out, hasOut := n.file(c.Name)
	if b, ok := n.file(c.Name + ".err"); ok {
		// a snippet that printed something and then failed: both reach the client
		exit, text := parseErr(b)
		return scripts.Result{Name: c.Name, Stdout: out, Exit: exit, Stderr: []byte(text)}
	}
	if hasOut {
		return scripts.Result{Name: c.Name, Stdout: out}
	}
	return scripts.Result{Name: c.Name, Exit: 1, Stderr: []byte("the scenario has no evidence " + c.Name + " for node " + n.opts.Node)}
}

// fix applies the overlay after/<fix>/ when the scenario has one, or fails as recorded
// in after/<fix>/result.err.
func (n *Node) fix(c scripts.Call) scripts.Result {
	if c.Name == "fix-remove-sandboxes" {
		return n.removeSandboxes(c)
	}
	dir := path.Join("after", c.Name)
	if b, err := fs.ReadFile(n.opts.Scenario, path.Join(dir, "result.err")); err == nil {
		exit, text := parseErr(b)
		return scripts.Result{Name: c.Name, Exit: exit, Stderr: []byte(text)}
	}
	if _, err := fs.Stat(n.opts.Scenario, dir); err != nil {
		return scripts.Result{Name: c.Name, Exit: 1,
			Stderr: []byte("the fake node's scenario does not say what " + c.Name + " changes (no " + dir + ")")}
	}
	n.mu.Lock()
	n.applied = append(n.applied, c.Name)
	n.mu.Unlock()
	out := []byte(c.Name + ": done\r\n")
	if b, err := fs.ReadFile(n.opts.Scenario, path.Join(dir, "output.txt")); err == nil {
		out = b
	}
	return scripts.Result{Name: c.Name, Stdout: out}
}

// file reads a node file from the latest overlay that has it, else the base tree.
func (n *Node) file(name string) ([]byte, bool) {
	n.mu.Lock()
	applied := append([]string(nil), n.applied...)
	b, written := n.written[name]
	n.mu.Unlock()
	if written {
		return b, true
	}
	for i := len(applied) - 1; i >= 0; i-- {
		if b, err := fs.ReadFile(n.opts.Scenario, path.Join("after", applied[i], "nodes", n.opts.Node, name)); err == nil {
			return b, true
		}
	}
	b, err := fs.ReadFile(n.opts.Scenario, path.Join("nodes", n.opts.Node, name))
	return b, err == nil
}

// parseErr reads an .err evidence file: "exit N" then the error text.
func parseErr(b []byte) (int, string) {
	first, rest, _ := strings.Cut(string(b), "\n")
	if v, ok := strings.CutPrefix(strings.TrimSpace(first), "exit "); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n, strings.TrimSpace(rest)
		}
	}
	return 1, strings.TrimSpace(string(b))
}

func cmdletOf(snippet string) string {
	switch snippet {
	case "hns-networks.json":
		return "Get-HnsNetwork"
	case "routes.json":
		return "Get-NetRoute"
	case "ip-addresses.json":
		return "Get-NetIPAddress"
	}
	return "Get-CimInstance"
}

func notRecognizedPS(cmd string) string {
	return cmd + " : The term '" + cmd + "' is not recognized as the name of a cmdlet, function, script file, or operable program. " +
		"Check the spelling of the name, or if a path was included, verify that the path is correct and try again."
}

// psError is what powershell.exe prints on a redirected stderr: CLIXML.
func psError(msg string) Reply {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\n", "_x000A_").Replace(msg)
	return Reply{ExitCode: 1, Stderr: []byte("#< CLIXML\r\n<Objs Version=\"1.1.0.1\" xmlns=\"http://schemas.microsoft.com/powershell/2004/04\">" +
		"<S S=\"Error\">" + esc + "_x000D__x000A_</S></Objs>")}
}

// notRecognized is cmd.exe's answer to a program it cannot find.
func notRecognized(commandLine string) Reply {
	prog := strings.Fields(commandLine + " x")[0]
	return Reply{ExitCode: 1, Stderr: []byte("'" + prog + "' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n")}
}
