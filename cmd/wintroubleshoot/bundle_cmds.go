package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/probes/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes/report"
)

// openBundle opens a snapshot bundle for analyze, verified first: checksums, format,
// and no entry that could escape the root.
func openBundle(ctx context.Context, path string) (collectors.Evidence, string, error) {
	b, err := bundle.OpenContext(ctx, path)
	if err != nil {
		return collectors.Evidence{}, "", err
	}
	return collectors.Evidence{FS: b.FS()}, "bundle " + path, nil
}

type snapshotOptions struct {
	out      string
	since    time.Duration
	maxLog   string
	rules    string
	noRedact bool
	// onNode hears of each node collected (the screen's progress bar); may be nil.
	onNode func(done, total int, node string)
}

func newSnapshotCmd(streams genericiooptions.IOStreams, live *liveOptions) *cobra.Command {
	var o snapshotOptions
	cmd := &cobra.Command{
		Use:   "snapshot -o FILE.tar.gz",
		Short: "Collect the Windows nodes' evidence, logs and findings into one bundle for a support case",
		Long: strings.TrimSpace(`
Collects what the probes read plus what a support engineer asks for (the tail of the
kubelet, kube-proxy, runtime, flanneld and startup logs; Service Control Manager, HNS and
HCS events; HNS endpoints and policy lists; free disk space), judges it, and writes one
tar.gz: cluster/ and nodes/<node>/ as collected, findings.json and report.md, the fix
audit log if there is one, and manifest.json (tool version, how each node was reached,
sha256 of every file, what redaction removed).

Secrets are redacted by default (passwords, tokens, kubeconfig keys, private keys,
Secret values, connection strings, cloud keys); --redact-rules adds rules of your own.
Read it back with 'wintroubleshoot analyze FILE'; compare two with 'wintroubleshoot diff'.

Exit codes as for --report: 0 nothing at or above fail, 1 failures found, 2 usage or
write error, 3 nothing could be judged. The bundle is written in every case but 2.`),
		Example: strings.TrimSpace(`
  WTS_PASSWORD=... wintroubleshoot snapshot -o case-1234.tar.gz
  wintroubleshoot snapshot -o snap.tar.gz --since 72h --max-log-size 50Mi --redact-rules ours.yaml`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), streams, live)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "output", "o", "", "the bundle to write, e.g. snapshot.tar.gz (required)")
	f.DurationVar(&o.since, "since", 24*time.Hour, "how far back event-log entries go")
	f.StringVar(&o.maxLog, "max-log-size", "10Mi", "how much of the end of each node log to keep (Ki, Mi, Gi)")
	f.StringVar(&o.rules, "redact-rules", "", "YAML or JSON file of extra redaction rules: a list of {name, regex, group, keywords}")
	f.BoolVar(&o.noRedact, "no-redact", false, "do not redact: the bundle may then hold passwords, tokens and private keys")
	live.access.addFlags(cmd)
	return cmd
}

func (o *snapshotOptions) run(ctx context.Context, streams genericiooptions.IOStreams, live *liveOptions) error {
	if o.out == "" {
		return usageErr("snapshot needs -o FILE.tar.gz, the bundle to write")
	}
	// Bad flags are usage errors found before connecting to anything.
	if q, err := resource.ParseQuantity(o.maxLog); err != nil || q.Value() <= 0 {
		return usageErr("--max-log-size %q: want a size such as 10Mi or 500Ki", o.maxLog)
	}
	if o.since <= 0 {
		return usageErr("--since %s: want a positive duration such as 24h", o.since)
	}
	if _, err := redactorFor(o.rules, o.noRedact); err != nil {
		return err
	}
	if st, err := os.Stat(filepath.Dir(o.out)); err != nil || !st.IsDir() {
		return usageErr("-o %s: the folder %s does not exist", o.out, filepath.Dir(o.out))
	}
	if o.noRedact {
		fmt.Fprintln(streams.ErrOut, "warning: --no-redact: the bundle may hold passwords, tokens and private keys")
	}
	sess, err := live.connect(ctx, streams)
	if err != nil {
		return err
	}
	m, findings, err := o.write(ctx, streams.ErrOut, sess)
	if err != nil {
		return &exitError{code: report.ExitUsage, err: err}
	}
	printWritten(streams.Out, o.out, m, findings)
	if code := report.ExitCode(findings, report.DefaultFailOn); code != report.ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// write collects a connected session's nodes again (with the snapshot's extra evidence),
// judges them and streams the bundle to o.out. The command and the screen's s key share it.
func (o *snapshotOptions) write(ctx context.Context, errOut io.Writer, sess *session) (*bundle.Manifest, []probes.Finding, error) {
	q, err := resource.ParseQuantity(o.maxLog)
	if err != nil || q.Value() <= 0 {
		return nil, nil, fmt.Errorf("--max-log-size %q: want a size such as 10Mi or 500Ki", o.maxLog)
	}
	red, err := redactorFor(o.rules, o.noRedact)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now().UTC().Truncate(time.Second)
	// Node output goes to a spool folder as each node finishes, so a fleet's logs are
	// never all in memory; the bundle then streams from disk.
	spool, err := os.MkdirTemp("", "wintroubleshoot-snapshot-*")
	if err != nil {
		return nil, nil, fmt.Errorf("making a spool folder: %w", err)
	}
	defer os.RemoveAll(spool)
	nodes, err := o.collect(ctx, errOut, sess, q.Value(), now, spool)
	if err != nil {
		return nil, nil, err
	}
	findings, err := engine.Analyze(sess.engine.Registry, sess.engine.Tree.Evidence(), nil)
	if err != nil {
		fmt.Fprintf(errOut, "warning: nothing to judge: %v\n", err)
	}
	meta := report.Meta{Tool: "wintroubleshoot", Version: version, Source: sess.source, Cluster: sess.cluster, Context: sess.context, Time: now}
	if err := writeReports(spool, meta, findings, sess.engine.Tree.Evidence()); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(errOut, "snapshot: writing %s\n", o.out)
	m, err := bundle.Write(ctx, o.out, bundle.DirSource(spool), bundle.Options{Tool: "wintroubleshoot", Version: version,
		Time: now, Nodes: nodes, MaxFileSize: max(4*q.Value(), 64<<20), Redact: red, NoRedact: o.noRedact})
	return m, findings, err
}

// collect sweeps every node (bounded by --concurrency) for the probes' evidence and the
// snapshot's, and moves each node's files to the spool as soon as it is done. Only the
// files probes read stay in memory, for judging. The cluster evidence follows.
func (o *snapshotOptions) collect(ctx context.Context, progress io.Writer, sess *session, maxLog int64, now time.Time, spool string) (map[string]bundle.Node, error) {
	shared := *sess.engine // a private copy: its Params must not leak into other sweeps
	eng := &shared
	needs := eng.Registry.NodeNeeds(eng.Registry.Probes())
	names := append(append([]string(nil), needs...), collectors.SnapshotNodeFiles()...)
	since := now.Add(-o.since).Format(time.RFC3339)
	params := map[string]map[string]any{}
	for n, p := range eng.Params {
		params[n] = p
	}
	for n, p := range evidence.SweepParams(names, map[string]any{evidence.ParamMaxBytes: maxLog, evidence.ParamSince: since}) {
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
	limit := eng.Concurrency
	if limit <= 0 {
		limit = 8 // the engine's default
	}
	// A node's reply is held whole until it is split (base64 in, files out: about three
	// times its five logs), so fewer nodes at once keep the total under about 1 GiB.
	limit = max(1, min(limit, int((1<<30)/(15*maxLog))))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, t := range sess.targets {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			cerr := eng.Collect(ctx, t, names)
			n, size, err := spoolNode(eng.Tree, t.Name, spool, needed)
			mu.Lock()
			defer mu.Unlock()
			nodes[t.Name] = bundle.Node{Transport: string(t.Transport.Kind), Address: t.Transport.Address()}
			if o.onNode != nil {
				o.onNode(len(nodes), len(sess.targets), t.Name)
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if cerr != nil {
				fmt.Fprintf(progress, "snapshot: %s: unreachable: %v\n", t.Name, cerr)
				return
			}
			fmt.Fprintf(progress, "snapshot: %s: %d files, %s in %s\n", t.Name, n, humanBytes(size), time.Since(start).Round(time.Millisecond))
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	_, _, err := bundle.Spool(eng.Tree, spool, func(p string) bool { return !strings.HasPrefix(p, "nodes/") })
	return nodes, err
}

// spoolNode writes a node's files to the spool and drops from the tree those no probe
// reads. It returns how many files and bytes it spooled.
func spoolNode(tree *collectors.Tree, node, spool string, needed map[string]bool) (int, int64, error) {
	prefix := "nodes/" + node + "/"
	var drop []string
	n, size, err := bundle.Spool(tree, spool, func(p string) bool {
		name, ok := strings.CutPrefix(p, prefix)
		if ok && !needed[name] && !strings.HasSuffix(name, collectors.ErrSuffix) && name != collectors.SweepErr {
			drop = append(drop, p)
		}
		return ok
	})
	tree.Delete(drop...)
	return n, size, err
}

// writeReports puts findings.json, report.md and the fix audit log into the spool.
func writeReports(spool string, meta report.Meta, findings []probes.Finding, ev collectors.Evidence) error {
	for _, r := range []struct {
		name   string
		format report.Format
		opt    report.Options
	}{
		{collectors.BundleFindings, report.JSON, report.Options{}},
		{collectors.BundleReport, report.Markdown, report.Options{Excerpts: excerpts(ev, findings)}},
	} {
		f, err := os.Create(filepath.Join(spool, r.name))
		if err != nil {
			return fmt.Errorf("writing %s: %w", r.name, err)
		}
		err = report.Write(f, r.format, meta, findings, r.opt)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", r.name, err)
		}
	}
	b, err := os.ReadFile(engine.DefaultAuditPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no fix was ever run here
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(spool, collectors.BundleAudit), b, 0o600)
	}
	if err != nil {
		return fmt.Errorf("adding the fix audit log: %w", err)
	}
	return nil
}

// redactorFor builds the redactor from the flags: nil when redaction is off.
func redactorFor(rulesFile string, off bool) (*bundle.Redactor, error) {
	if off {
		if rulesFile != "" {
			return nil, usageErr("--no-redact and --redact-rules contradict each other; pick one")
		}
		return nil, nil
	}
	rules := bundle.DefaultRules()
	if rulesFile != "" {
		custom, err := bundle.LoadRules(rulesFile)
		if err != nil {
			return nil, usageErr("--redact-rules: %v", err)
		}
		rules = append(rules, custom...)
	}
	r, err := bundle.NewRedactor(rules)
	if err != nil {
		return nil, usageErr("--redact-rules: %v", err)
	}
	return r, nil
}

func printWritten(w io.Writer, path string, m *bundle.Manifest, findings []probes.Finding) {
	var size int64
	for _, it := range m.Items {
		size += it.Size
	}
	nodes := fmt.Sprintf("%d nodes", len(m.Nodes))
	if len(m.Nodes) == 1 {
		nodes = "1 node"
	}
	fmt.Fprintf(w, "wrote %s: %d files (%s before compression) from %s\n", path, len(m.Items), humanBytes(size), nodes)
	switch {
	case !m.Redacted:
		fmt.Fprintln(w, "NOT redacted: check it before sharing it")
	case m.RedactedValues() == 0:
		fmt.Fprintln(w, "redacted: no secrets found")
	default:
		rules := map[string]int{}
		for _, r := range m.Redactions {
			rules[r.Rule] += r.Count
		}
		var parts []string
		for rule, n := range rules {
			parts = append(parts, fmt.Sprintf("%s %d", rule, n))
		}
		sort.Strings(parts)
		fmt.Fprintf(w, "redacted %d values: %s\n", m.RedactedValues(), strings.Join(parts, ", "))
	}
	if len(findings) > 0 {
		c := report.Counts(findings)
		fmt.Fprintf(w, "findings: %d fail, %d warn, %d error, %d pass (see report.md in the bundle, or: wintroubleshoot analyze %s)\n",
			c[probes.Fail], c[probes.Warn], c[probes.Error], c[probes.Pass], path)
	}
}

func humanBytes(n int64) string {
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
