// Package sweep collects a node's evidence with one remote command: the named snippets
// framed into one script (collect/scripts) sent over any transport, and the reply
// split back into evidence files. It sits above the evidence contract (evidence/), so
// that probes, which read evidence, never pull in transports or embedded scripts.
package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// NoteSuffix marks the companion of an evidence file holding what its snippet printed
// that is not a failure: native stderr at exit 0 (crictl's endpoint warning) and warnings.
const NoteSuffix = ".note"

// Request is one sweep: the snippets to run, their parameters by snippet name, and the
// limit each snippet runs under on the node (0: scripts.DefaultLimit).
type Request struct {
	Names  []string
	Params map[string]map[string]any
	Limit  time.Duration
	// OS is the node's kind: Windows (PowerShell) or Linux (sh). Each sweep asks only for
	// the names its kind produces (scripts.IsLinuxFile), whatever Names holds.
	OS evidence.OS
	// User is the account the transport logs in as: a Linux sweep runs through sudo -n
	// for any account but root (scripts.LinuxCommandLine).
	User string
}

// NamesFor is what the sweep of a node of kind os asks for out of names: the Linux sweep
// produces the Linux files (scripts.IsLinuxFile), the Windows sweep every other one. A
// Linux sweep always writes os.json, whatever probes read: it is the file that says the
// folder is a Linux node's (evidence.NodeOS), so analyze judges it as the live run did.
func NamesFor(os evidence.OS, names []string) []string {
	var out []string
	if os == evidence.Linux && !slices.Contains(names, evidence.FileLinuxOS) {
		out = append(out, evidence.FileLinuxOS)
	}
	for _, n := range names {
		if scripts.IsLinuxFile(n) == (os == evidence.Linux) {
			out = append(out, n)
		}
	}
	return out
}

// script is the sweep script and the command line that runs it on the request's node.
func script(req Request, names []string) (script, commandLine string, err error) {
	if req.OS == evidence.Linux {
		script, err = scripts.LinuxSweep(names, req.Limit)
		return script, scripts.LinuxCommandLine(req.User), err
	}
	calls := make([]scripts.Call, len(names))
	for i, n := range names {
		calls[i] = scripts.Call{Name: n, Params: req.Params[n], Limit: req.Limit}
	}
	script, err = scripts.Sweep(calls)
	return script, scripts.CommandLine(), err
}

// FallbackSource is implemented by a transport that can produce some evidence files
// another way when their snippet fails on the node (the local transport reads HNS through
// hcsshim where the cmdlet is missing). Keys are evidence names.
type FallbackSource interface {
	Fallbacks() map[string]func(ctx context.Context) ([]byte, error)
}

// Run sweeps one node. It returns the files to store under nodes/<node>/: each snippet's
// output verbatim, a ".err" companion for each snippet that failed, timed out or never
// arrived, and a ".note" companion for output that is not a failure. A sweep cut short
// (timeout, dropped connection) keeps every frame that arrived. An error means the node
// gave no usable reply at all.
func Run(ctx context.Context, tr transport.Transport, req Request) (map[string][]byte, error) {
	p, err := NewPlan(req)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, tr)
}

var errNotSweep = errors.New("the node's reply is not a sweep reply")

// hintNoSweepReply: the command ran but something else printed first or instead.
const hintNoSweepReply = "the node ran the command but did not answer with the sweep: check that the transport reaches a Windows node, " +
	"its default shell (SSH: cmd or powershell) and profile scripts that print"

// hint says what to try when a node gave no sweep reply, naming the other kind of node
// when the reply is that kind's shell failing to find our program.
func hint(o evidence.OS, err error, out transport.Output) string {
	text := string(out.Stderr)
	switch {
	case o != evidence.Linux && (strings.Contains(text, "powershell.exe: not found") || strings.Contains(text, "powershell.exe: command not found")):
		return "this is a Linux node (its shell has no powershell.exe): probe it as one, --node NAME=linux://HOST or --linux-nodes"
	case o == evidence.Linux && (strings.Contains(text, "'sh' is not recognized") || strings.Contains(text, "The term 'sh' is not recognized")):
		return "this is a Windows node (its shell has no sh): probe it without linux://"
	case o == evidence.Linux && strings.Contains(text, "sudo: a password is required"):
		return "the account needs a password for sudo: log in as root (--linux-user root) or allow it NOPASSWD in sudoers"
	case errors.Is(err, errNotSweep) && o == evidence.Linux:
		return "the node ran the command but did not answer with the sweep: check that the account's login shell runs `sh -s` and that no profile script prints"
	case errors.Is(err, errNotSweep):
		return hintNoSweepReply
	}
	return ""
}

// cutShort says why the reply ended early, in the words a missing file's .err carries.
func cutShort(ctx context.Context, err error, elapsed time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %d s: the sweep was stopped before this snippet's output arrived", int(elapsed.Round(time.Second)/time.Second))
	}
	return fmt.Errorf("connection dropped before this snippet's output arrived: %w", err)
}

// SplitReply turns a sweep's output into evidence files. cut, when not nil, says why the
// reply ended early; a reply with no frame at all is then an error. out.Stdout is
// overwritten: the files are decoded in place and are slices of it.
func SplitReply(names []string, out transport.Output, cut error) (map[string][]byte, error) {
	results, noise, splitErr := scripts.SplitInPlace(out.Stdout)
	if len(results) == 0 {
		switch errText := strings.TrimSpace(scripts.DecodeCLIXML(out.Stderr)); {
		case cut != nil:
			return nil, cut
		case errText != "":
			return nil, fmt.Errorf("the sweep script failed (exit %d): %s", out.ExitCode, firstLines(errText, 3))
		case len(noise) > 0:
			return nil, fmt.Errorf("%w (exit %d), it begins: %.120q", errNotSweep, out.ExitCode, noise[0])
		case splitErr != nil:
			return nil, fmt.Errorf("reading the sweep reply: %w", splitErr)
		}
	}
	files := make(map[string][]byte, len(names))
	got := map[string]bool{}
	for _, r := range results {
		got[r.Name] = true
		if len(r.Stdout) > 0 || !r.Failed() {
			files[r.Name] = r.Stdout
		}
		if r.Failed() {
			msg := strings.TrimSpace(scripts.DecodeCLIXML(r.Stderr))
			files[r.Name+evidence.ErrSuffix] = fmt.Appendf(nil, "exit %d\n%s\n", r.Exit, msg)
		}
		if note := strings.TrimSpace(string(r.Notes)); note != "" {
			files[r.Name+NoteSuffix] = []byte(note + "\n")
		}
	}
	for _, n := range names {
		if got[n] {
			continue
		}
		why := "the node did not return this snippet's output"
		switch {
		case cut != nil:
			why = cut.Error()
		case errors.Is(splitErr, scripts.ErrTruncated):
			why = splitErr.Error()
		}
		files[n+evidence.ErrSuffix] = fmt.Appendf(nil, "exit -1\n%s\n", why)
	}
	return files, nil
}

// applyFallbacks produces the failed files a fallback knows another way; a fallback that
// fails too adds its reason to the .err.
func applyFallbacks(ctx context.Context, files map[string][]byte, fbs map[string]func(context.Context) ([]byte, error)) {
	names := make([]string, 0, len(fbs))
	for n := range fbs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		errFile := n + evidence.ErrSuffix
		if _, failed := files[errFile]; !failed {
			continue
		}
		b, err := fbs[n](ctx)
		if err != nil {
			files[errFile] = fmt.Appendf(bytes.TrimRight(files[errFile], "\n"), "\nreading it another way failed too: %v\n", err)
			continue
		}
		files[n] = b
		delete(files, errFile)
	}
}

func firstLines(s string, n int) string {
	lines := bytes.SplitN([]byte(s), []byte("\n"), n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.TrimSpace(string(bytes.Join(lines, []byte(" | "))))
}
