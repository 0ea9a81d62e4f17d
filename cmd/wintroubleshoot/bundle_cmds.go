package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

type snapshotOptions struct {
	out      string
	since    time.Duration
	maxLog   string
	rules    string
	noRedact bool
}

func newSnapshotCmd(streams genericiooptions.IOStreams, live *liveOptions) *cobra.Command {
	var o snapshotOptions
	cmd := &cobra.Command{
		Use:   "snapshot FILE.tar.gz",
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
write error, 3 nothing could be judged, 130 interrupted. The bundle is written in every case but 2 and 130.`),
		Example: strings.TrimSpace(`
  WTS_PASSWORD=... wintroubleshoot snapshot case-1234.tar.gz
  wintroubleshoot snapshot snap.tar.gz --since 72h --max-log-size 50Mi --redact-rules ours.yaml`),
		// The bundle is an argument, as for analyze, redact and diff: -o is the output
		// format everywhere else, as in kubectl.
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("snapshot needs the bundle to write, and only that: wintroubleshoot snapshot FILE.tar.gz")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := o.complete(streams, args)
			if err != nil {
				return err
			}
			return o.run(cmd.Context(), streams, live, opt)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.since, "since", 24*time.Hour, "how far back event-log entries go")
	f.StringVar(&o.maxLog, "max-log-size", "10Mi", "how much of the end of each node log to keep (Ki, Mi, Gi)")
	f.StringVar(&o.rules, "redact-rules", "", "YAML or JSON file of extra redaction rules: a list of {name, regex, group, keywords}")
	f.BoolVar(&o.noRedact, "no-redact", false, "do not redact: the bundle may then hold passwords, tokens and private keys")
	cmd.MarkFlagsMutuallyExclusive("no-redact", "redact-rules")
	live.access.addFlags(cmd)
	return cmd
}

// complete reads the argument and checks the flags: bad input is a usage error found
// before connecting to anything.
func (o *snapshotOptions) complete(streams genericiooptions.IOStreams, args []string) (engine.SnapshotOptions, error) {
	o.out = args[0]
	opt, err := o.engineOptions(streams.ErrOut)
	if err != nil {
		return opt, err
	}
	if st, err := os.Stat(filepath.Dir(o.out)); err != nil || !st.IsDir() {
		return opt, usageErr("snapshot %s: the folder %s does not exist", o.out, filepath.Dir(o.out))
	}
	return opt, nil
}

func (o *snapshotOptions) run(ctx context.Context, streams genericiooptions.IOStreams, live *liveOptions, opt engine.SnapshotOptions) error {
	if o.noRedact {
		fmt.Fprintln(streams.ErrOut, "warning: --no-redact: the bundle may hold passwords, tokens and private keys")
	}
	live.rawEvidence, live.intake = o.noRedact, opt.Redact
	sess, err := live.connect(ctx, streams)
	if err != nil {
		return err
	}
	addSecrets(opt.Redact, sess.secrets, streams.ErrOut)
	m, findings, err := sess.api(nil).Snapshot(ctx, opt)
	if ctx.Err() != nil {
		return interrupted()
	}
	if err != nil {
		return &exitError{code: report.ExitUsage, err: err}
	}
	printWritten(streams.Out, o.out, m, findings)
	reached := 0
	for _, n := range m.Nodes {
		if n.Error == "" {
			reached++
		}
	}
	if len(m.Nodes) > 0 && reached == 0 {
		// As for --report: the bundle is written (it says why), but no node was judged.
		return &exitError{code: report.ExitNothingJudged, err: fmt.Errorf("none of the %d nodes could be reached", len(m.Nodes))}
	}
	if code := report.ExitCode(findings, report.DefaultFailOn); code != report.ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// engineOptions turns the flags into the engine's snapshot options; errors are usage
// errors. The command and the screen's s key share it.
func (o *snapshotOptions) engineOptions(log io.Writer) (engine.SnapshotOptions, error) {
	q, err := resource.ParseQuantity(o.maxLog)
	if err != nil || q.Value() <= 0 {
		return engine.SnapshotOptions{}, usageErr("--max-log-size %q: want a size such as 10Mi or 500Ki", o.maxLog)
	}
	if o.since <= 0 {
		return engine.SnapshotOptions{}, usageErr("--since %s: want a positive duration such as 24h", o.since)
	}
	red, err := redactorFor(o.rules, o.noRedact)
	if err != nil {
		return engine.SnapshotOptions{}, err
	}
	// The progress lines quote node errors (addresses, what a node answered): they leave
	// through a redactor of their own, so the bundle manifest's counts stay the bundle's.
	logRed, err := newRunRedactor(o.rules)
	if err != nil {
		return engine.SnapshotOptions{}, err
	}
	return engine.SnapshotOptions{Path: o.out, Since: o.since, MaxLog: q.Value(), Redact: red, NoRedact: o.noRedact,
		Tool: "wintroubleshoot", Version: version, AuditPath: engine.DefaultAuditPath(), Log: redactedLines{log, logRed}}, nil
}

// redactedLines redacts each write (the snapshot log writes whole lines).
type redactedLines struct {
	w io.Writer
	r *redact.Redactor
}

func (l redactedLines) Write(p []byte) (int, error) {
	if _, err := io.WriteString(l.w, l.r.String("snapshot.log", string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
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
	fmt.Fprintf(w, "wrote %s: %d files (%s before compression) from %s\n", path, len(m.Items), engine.HumanBytes(size), nodes)
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
