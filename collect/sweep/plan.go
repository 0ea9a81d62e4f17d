package sweep

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"strings"
	"sync"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// Plan is a Request's script, built once and sent to many nodes. A fleet sweep sends
// every node of a kind the same script: building it per node (reading each snippet from
// the embedded files, framing it, copying it into the command's stdin) was a tenth of the
// client's CPU per node and a quarter of its allocations (BenchmarkFleetSweep).
type Plan struct {
	req         Request
	names       []string
	stdin       []byte // shared by every run: transports only read it
	stdinB64    []byte // its base64, which WinRM sends: encoded once too
	commandLine string
}

// NewPlan builds req's script.
func NewPlan(req Request) (*Plan, error) {
	names := NamesFor(req.OS, req.Names)
	script, commandLine, err := script(req, names)
	if err != nil {
		return nil, fmt.Errorf("building the sweep script: %w", err)
	}
	stdin := []byte(script)
	return &Plan{req: req, names: names, stdin: stdin, stdinB64: base64.StdEncoding.AppendEncode(nil, stdin), commandLine: commandLine}, nil
}

// Run sweeps one node with the plan's script; see the package's Run.
func (p *Plan) Run(ctx context.Context, tr transport.Transport) (map[string][]byte, error) {
	start := time.Now()
	out, runErr := tr.Run(ctx, transport.Command{CommandLine: p.commandLine, Stdin: p.stdin, StdinBase64: p.stdinB64})
	var cut error
	if runErr != nil {
		cut = cutShort(ctx, runErr, time.Since(start))
	}
	files, err := SplitReply(p.names, out, cut)
	if err != nil {
		if runErr != nil {
			return nil, runErr
		}
		return nil, transport.ReplyError(tr, err, hint(p.req.OS, err, out))
	}
	if fs, ok := tr.(FallbackSource); ok {
		applyFallbacks(ctx, files, fs.Fallbacks())
	}
	return files, nil
}

// Plans memoizes plans by request, for the nodes of one run: the same names, parameters,
// limit, kind and (on evidence.Linux, where it shapes the command line) account give the same
// plan. The zero value is ready; safe for concurrent use.
type Plans struct {
	mu sync.Mutex
	m  map[string]*Plan
}

// For is req's plan, built on first use.
func (ps *Plans) For(req Request) (*Plan, error) {
	key := planKey(req)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if p, ok := ps.m[key]; ok {
		return p, nil
	}
	p, err := NewPlan(req)
	if err != nil {
		return nil, err
	}
	if ps.m == nil {
		ps.m = map[string]*Plan{}
	}
	ps.m[key] = p
	return p, nil
}

// planKey identifies what a script depends on. fmt prints maps with sorted keys, so equal
// parameters give equal text.
func planKey(req Request) string {
	user := ""
	if req.OS == evidence.Linux {
		user = req.User
	}
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%v", req.OS, user, req.Limit, strings.Join(req.Names, "\x01"), req.Params)
}
