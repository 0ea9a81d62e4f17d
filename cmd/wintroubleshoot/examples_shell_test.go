package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// The examples are shell lines; this runs the small part of sh they use, in process:
// VAR=value prefixes and export, "a && b", "a | jq ...", "a > file", a trailing "&"
// for a server, ~ and /tmp paths. The program is Run; nothing else is executed.

// shellCmd is one simple command of a line.
type shellCmd struct {
	env        map[string]string
	export     bool
	args       []string // after the program name
	redirect   string   // > file
	pipe       []string // | jq EXPR
	background bool     // trailing &
}

// parseLine splits a line into the commands "&&" joins.
func parseLine(line string) ([]shellCmd, error) {
	var cmds []shellCmd
	for _, part := range strings.Split(line, " && ") {
		var c shellCmd
		part = strings.TrimSpace(part)
		if rest, ok := strings.CutSuffix(part, " &"); ok {
			c.background, part = true, rest
		}
		if left, right, ok := strings.Cut(part, " | "); ok {
			c.pipe, part = strings.Fields(right), left
		}
		if left, right, ok := strings.Cut(part, " > "); ok {
			c.redirect, part = strings.TrimSpace(right), left
		}
		f := strings.Fields(part)
		if len(f) > 0 && f[0] == "export" {
			c.export, f = true, f[1:]
		}
		c.env = map[string]string{}
		for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") {
			k, v, _ := strings.Cut(f[0], "=")
			c.env[k], f = v, f[1:]
		}
		switch {
		case c.export && len(f) == 0:
		case len(f) >= 3 && f[0] == "go" && f[1] == "run" && f[2] == "./cmd/wintroubleshoot":
			c.args = f[3:]
		case len(f) >= 1 && (f[0] == "wintroubleshoot" || f[0] == "wintroubleshoot.exe"):
			c.args = f[1:]
		default:
			return nil, fmt.Errorf("%q does not run wintroubleshoot", part)
		}
		if len(c.pipe) > 0 && c.pipe[0] != "jq" {
			return nil, fmt.Errorf("%q pipes into %s; the harness knows jq", part, c.pipe[0])
		}
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// shellRun is the outcome of one command.
type shellRun struct {
	code           int
	stdout, stderr string
}

// runLine runs a line as sh would and returns its exit code: the last command run
// ("a && b" stops at the first non-zero).
func (w *exampleWorld) runLine(t *testing.T, ctx context.Context, line string) (int, []shellRun) {
	t.Helper()
	cmds, err := parseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	var runs []shellRun
	for _, c := range cmds {
		if c.export {
			for k, v := range c.env {
				t.Setenv(k, w.value(v))
			}
			runs = append(runs, shellRun{})
			continue
		}
		r := w.runCmd(t, ctx, c)
		runs = append(runs, r)
		if r.code != 0 {
			return r.code, runs
		}
	}
	return runs[len(runs)-1].code, runs
}

// value is what a placeholder in an example stands for.
func (w *exampleWorld) value(v string) string {
	if v == "..." {
		return examplePassword
	}
	return v
}

func (w *exampleWorld) runCmd(t *testing.T, ctx context.Context, c shellCmd) shellRun {
	t.Helper()
	for k, v := range c.env { // VAR=value applies to this command only
		old, had := os.LookupEnv(k)
		os.Setenv(k, w.value(v))
		defer func() {
			if had {
				os.Setenv(k, old)
			} else {
				os.Unsetenv(k)
			}
		}()
	}
	if len(c.args) > 0 && c.args[0] == "compare" && !slices.Contains(c.args, "--from") {
		w.startPeer(t)
	}
	args := w.adapt(c.args)
	if c.background || isServer(args) {
		return w.serve(t, ctx, args, c.background)
	}
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	switch {
	case interactive(args):
		tty := w.screen(t) // the person looks, then quits
		streams.In, streams.Out = tty, tty
	case prompts(args):
		tty := w.answer(t, "y\n") // the person confirms on the terminal
		streams.In = tty
	}
	code := Run(ctx, streams, args)
	r := shellRun{code: code, stdout: out.String(), stderr: errOut.String()}
	if c.redirect != "" {
		write(t, filepath.Join(w.dir, c.redirect), out.Bytes())
		if out.Len() == 0 {
			t.Errorf("%v > %s: nothing written", args, c.redirect)
		}
	}
	if len(c.pipe) > 0 { // jq .field: the output is JSON holding that field
		var doc map[string]any
		field := strings.TrimPrefix(c.pipe[len(c.pipe)-1], ".")
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc[field] == nil {
			r.code = 5 // what jq says to input it cannot parse
			t.Logf("| jq .%s: %v", field, err)
		} else {
			r.code = 0
		}
	}
	return r
}

// screen gives a terminal (the screen opens only on one) whose person presses q as soon
// as anything is drawn.
func (w *exampleWorld) screen(t *testing.T) *os.File {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal for the screen (%v): the rest of this block is not run", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				ptmx.Write([]byte("q"))
			}
			if err != nil {
				return
			}
		}
	}()
	return tty
}

// answer gives a terminal whose person types text once a prompt has been written.
func (w *exampleWorld) answer(t *testing.T, text string) *os.File {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal to confirm on (%v): the rest of this block is not run", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	if _, err := ptmx.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	return tty
}

// serve runs a fake node command until it serves, maps the address the example gave
// to the one it really listens on, and stops it when the block ends (background) or
// at once (a foreground server never ends by itself).
func (w *exampleWorld) serve(t *testing.T, ctx context.Context, args []string, background bool) shellRun {
	t.Helper()
	var asked string
	for i, a := range args {
		if a == "--listen" && i+1 < len(args) {
			asked, args[i+1] = args[i+1], "127.0.0.1:0"
		}
	}
	ctx, stop := context.WithCancel(ctx)
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut}, args)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), " at ") && time.Now().Before(deadline) {
		select {
		case code := <-done:
			stop()
			return shellRun{code: code, stdout: out.String(), stderr: errOut.String()}
		case <-time.After(20 * time.Millisecond):
		}
	}
	if url := between(out.String(), "WinRM at ", "\n"); url != "" && asked != "" {
		w.addrs[asked] = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(url, "https://"), "http://"), "/wsman")
	}
	finish := func() shellRun {
		stop()
		return shellRun{code: <-done, stdout: out.String(), stderr: errOut.String()}
	}
	if background {
		t.Cleanup(func() {
			if r := finish(); r.code != 0 {
				t.Errorf("%v (in the background) exit %d: %s", args, r.code, r.stderr)
			}
		})
		return shellRun{code: 0, stdout: out.String()}
	}
	return finish()
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
