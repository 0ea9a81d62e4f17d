package collectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
)

// Sweep collects a node's evidence with ONE remote command: the named snippets joined
// into one framed script sent on stdin. It returns the files to store under
// nodes/<node>/: each snippet's output verbatim, and a ".err" companion for each snippet
// that failed (so one failing cmdlet never hides the others). An error means the node
// gave no usable reply at all.
func Sweep(ctx context.Context, tr transport.Transport, names []string, params map[string]map[string]any) (map[string][]byte, error) {
	calls := make([]scripts.Call, len(names))
	for i, n := range names {
		calls[i] = scripts.Call{Name: n, Params: params[n]}
	}
	script, err := scripts.Sweep(calls)
	if err != nil {
		return nil, fmt.Errorf("building the sweep script: %w", err)
	}
	out, err := tr.Run(ctx, transport.Command{CommandLine: scripts.CommandLine(), Stdin: []byte(script)})
	if err != nil {
		return nil, err
	}
	return SplitReply(names, out)
}

// SplitReply turns a sweep's output into evidence files.
func SplitReply(names []string, out transport.Output) (map[string][]byte, error) {
	results, noise, splitErr := scripts.Split(out.Stdout)
	if len(results) == 0 {
		if errText := strings.TrimSpace(scripts.DecodeCLIXML(out.Stderr)); errText != "" {
			return nil, fmt.Errorf("the sweep script failed (exit %d): %s", out.ExitCode, firstLines(errText, 3))
		}
		if len(noise) > 0 {
			return nil, fmt.Errorf("the node's reply is not a sweep reply (exit %d), it begins: %.120q", out.ExitCode, noise[0])
		}
		if splitErr != nil {
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
			files[r.Name+ErrSuffix] = fmt.Appendf(nil, "exit %d\n%s\n", r.Exit, msg)
		}
	}
	for _, n := range names {
		if !got[n] {
			why := "the node did not return this snippet's output"
			if errors.Is(splitErr, scripts.ErrTruncated) {
				why = splitErr.Error()
			}
			files[n+ErrSuffix] = fmt.Appendf(nil, "exit -1\n%s\n", why)
		}
	}
	return files, nil
}

func firstLines(s string, n int) string {
	lines := bytes.SplitN([]byte(s), []byte("\n"), n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.TrimSpace(string(bytes.Join(lines, []byte(" | "))))
}
