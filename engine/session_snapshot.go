package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// SnapshotOptions tune Session.Snapshot. Flags are checked by the caller; Snapshot
// only refuses values it cannot work with.
type SnapshotOptions struct {
	Path          string        // the bundle to write
	Since         time.Duration // how far back event-log entries go
	MaxLog        int64         // bytes kept from the end of each node log
	Redact        *bundle.Redactor
	NoRedact      bool
	Tool, Version string
	AuditPath     string    // fix audit log to include when it exists; "" for none
	Log           io.Writer // one line per node collected; nil discards
	// OnNode hears of each node collected (the screen's progress bar); may be nil.
	OnNode func(done, total int, node string)
	// Now stamps the bundle; nil means time.Now.
	Now func() time.Time
}

// Snapshot collects every target again with the snapshot's extra evidence, judges
// them and streams the bundle to opt.Path. The snapshot command and the screen's s key
// share it.
func (s *Session) Snapshot(ctx context.Context, opt SnapshotOptions) (*bundle.Manifest, []probes.Finding, error) {
	if opt.MaxLog <= 0 || opt.Since <= 0 {
		return nil, nil, fmt.Errorf("snapshot: want a positive log size and time window, got %d bytes and %s", opt.MaxLog, opt.Since)
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	clock := opt.Now
	if clock == nil {
		clock = time.Now
	}
	now := clock().UTC().Truncate(time.Second)
	// Node output goes to a spool folder as each node finishes, so a fleet's logs are
	// never all in memory; the bundle then streams from disk.
	spool, err := os.MkdirTemp("", "wintroubleshoot-snapshot-*")
	if err != nil {
		return nil, nil, fmt.Errorf("making a spool folder: %w", err)
	}
	defer os.RemoveAll(spool)
	nodes, err := s.collectSnapshot(ctx, opt, now, spool)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("snapshot %s interrupted, nothing written: %w", opt.Path, err)
	}
	findings, err := Analyze(ctx, s.Engine.Registry, s.Engine.Tree.Evidence(), nil)
	if err != nil {
		fmt.Fprintf(opt.Log, "warning: nothing to judge: %v\n", err)
	}
	meta := report.Meta{Tool: opt.Tool, Version: opt.Version, Source: s.Source, Cluster: s.Cluster, Context: s.Context, Time: now}
	if err := writeReports(spool, meta, findings, ReaderOf(s.Engine.Tree.Evidence()), opt.AuditPath, opt.Redact); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(opt.Log, "snapshot: writing %s\n", opt.Path)
	m, err := bundle.Write(ctx, opt.Path, bundle.DirSource(spool), bundle.Options{Tool: opt.Tool, Version: opt.Version,
		Time: now, Nodes: nodes, MaxFileSize: max(4*opt.MaxLog, 64<<20), Redact: opt.Redact, NoRedact: opt.NoRedact})
	return m, findings, err
}

// collectSnapshot sweeps every node (bounded as every sweep is, and further so that the
// replies in memory stay under about 1 GiB) for the probes' evidence and the snapshot's,
// and moves each node's files to the spool as soon as it is done. Only the files probes
// read stay in memory, for judging. The cluster evidence follows. A node a cancel kept
// from its turn is listed in the bundle with the reason.
func (s *Session) collectSnapshot(ctx context.Context, opt SnapshotOptions, now time.Time, spool string) (map[string]bundle.Node, error) {
	shared := *s.Engine // a private copy: its Params must not leak into other sweeps
	eng := &shared
	needs := eng.nodeNeeds() // Windows and Linux files: each node's sweep asks for its own
	names := append(append([]string(nil), needs...), evidence.SnapshotNodeFiles()...)
	since := now.Add(-opt.Since).Format(time.RFC3339)
	params := map[string]map[string]any{}
	for n, p := range eng.Params {
		params[n] = p
	}
	// Each key declares the parameters its snippet takes.
	for n, p := range evidence.SweepParams(names, map[string]any{evidence.ParamMaxBytes: opt.MaxLog, evidence.ParamSince: since}) {
		params[n] = p
	}
	eng.Params = params
	needed := map[string]bool{}
	for _, n := range needs {
		needed[n] = true
	}
	nodes := map[string]bundle.Node{}
	var mu sync.Mutex
	var firstErr error
	// A node's reply is held whole until it is split (base64 in, files out: about three
	// times its five logs).
	limit := eng.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	limit = max(1, min(limit, int((1<<30)/(15*opt.MaxLog))))
	finished := func(t Target, line string, err error) {
		mu.Lock()
		defer mu.Unlock()
		nodes[t.Name] = bundle.Node{Transport: string(t.Transport.Kind), Address: t.Transport.Address()}
		if opt.OnNode != nil {
			opt.OnNode(len(nodes), len(s.Targets), t.Name)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		fmt.Fprintf(opt.Log, "snapshot: %s: %s\n", t.Name, line)
	}
	Each(ctx, limit, len(s.Targets), func(ctx context.Context, i int) {
		t := s.Targets[i]
		start := time.Now()
		cerr := eng.Collect(ctx, t, names)
		n, size, err := spoolNode(eng.Tree, t.Name, spool, needed)
		line := fmt.Sprintf("%d files, %s in %s", n, HumanBytes(size), time.Since(start).Round(time.Millisecond))
		switch {
		case cerr != nil && ctx.Err() != nil:
			// The run was stopped: the node did not fail to answer.
			line = fmt.Sprintf("interrupted: %v", ctx.Err())
		case cerr != nil:
			line = fmt.Sprintf("unreachable: %v", cerr)
		}
		finished(t, line, err)
	}, func(i int, err error) {
		t := s.Targets[i]
		// The bundle says why this node has no evidence, as for an unreachable one.
		eng.Tree.Put("nodes/"+t.Name+"/"+evidence.SweepErr, []byte(NotSwept(t.Name, err).Summary+"\n"+err.Error()))
		_, _, serr := spoolNode(eng.Tree, t.Name, spool, needed)
		finished(t, "not collected: "+err.Error(), serr)
	})
	if firstErr != nil {
		return nil, firstErr
	}
	_, _, err := bundle.Spool(eng.Tree, spool, func(p string) bool { return !strings.HasPrefix(p, "nodes/") })
	return nodes, err
}

// spoolNode writes a node's files to the spool and drops from the tree those no probe
// reads. It returns how many files and bytes it spooled.
func spoolNode(tree *evidence.Tree, node, spool string, needed map[string]bool) (int, int64, error) {
	prefix := "nodes/" + node + "/"
	var drop []string
	n, size, err := bundle.Spool(tree, spool, func(p string) bool {
		name, ok := strings.CutPrefix(p, prefix)
		if ok && !needed[name] && !strings.HasSuffix(name, evidence.ErrSuffix) && name != evidence.SweepErr {
			drop = append(drop, p)
		}
		return ok
	})
	tree.Delete(drop...)
	return n, size, err
}

// writeReports puts findings.json, report.md and the fix audit log into the spool.
func writeReports(spool string, meta report.Meta, findings []probes.Finding, read EvidenceReader, auditPath string, red *bundle.Redactor) error {
	for _, r := range []struct {
		name   string
		format report.Format
		opt    report.Options
	}{
		{evidence.BundleFindings, report.JSON, report.Options{}},
		{evidence.BundleReport, report.Markdown, report.Options{Excerpts: Excerpts(read, findings, red)}},
	} {
		f, err := os.Create(filepath.Join(spool, r.name))
		if err != nil {
			return fmt.Errorf("writing %s: %w", r.name, err)
		}
		// Redacted here, before Markdown escapes (SECRET\_KEY): the bundle's own pass
		// over report.md comes after the escaping and cannot see such a secret.
		err = report.WriteRedacted(f, r.format, meta, findings, r.opt, red)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", r.name, err)
		}
	}
	if auditPath == "" {
		return nil
	}
	b, err := os.ReadFile(auditPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no fix was ever run here
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(spool, evidence.BundleAudit), b, 0o600)
	}
	if err != nil {
		return fmt.Errorf("adding the fix audit log: %w", err)
	}
	return nil
}

// HumanBytes is a size for people, as snapshots report them: 1.5 MiB.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
