package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

type fixOptions struct {
	node    string
	choice  string
	dryRun  bool
	yes     bool
	confirm string
	drain   kube.DrainOptions
}

func newFixCmd(streams genericiooptions.IOStreams, live *liveOptions) *cobra.Command {
	var o fixOptions
	cmd := &cobra.Command{
		Use:   "fix PROBE-ID --node NODE",
		Short: "Preview, confirm, run and verify the fix a finding offers",
		Long: strings.TrimSpace(`
Probes the node, shows the exact commands the fix would run and what they disrupt, asks
for confirmation, runs them through the node's transport or the Kubernetes API, then
re-collects what the verifying probe reads and shows the new status. Every attempt is
appended to the audit log (` + engine.DefaultAuditPath() + `).

Confirming follows one rule, the same as in the interactive screen: an ordinary fix takes
a yes; a disruptive one (restarting the runtime, drain, deleting the node) takes the node's
name typed back. Headless, --yes answers for an ordinary fix, and a disruptive one needs
--yes --confirm NODE as well: --yes alone never runs it.

A drain does what kubectl drain does, and the preview lists the pods it would evict: it
leaves DaemonSet pods, honours PodDisruptionBudgets, and refuses, changing nothing, while a
pod no controller manages (--force) or one with emptyDir data (--delete-emptydir-data) would
be lost.`),
		Example: strings.TrimSpace(`
  # see what would run, change nothing
  wintroubleshoot fix SVC-KUBELET --node win-1 --dry-run

  # run it after a confirmation prompt
  WTS_PASSWORD=... wintroubleshoot fix NET-ROUTES --node win-1

  # headless, including a disruptive choice: the node name confirms it
  wintroubleshoot fix SVC-REBOOT --node win-1 --choice delete-node --yes --confirm win-1

  # drain even pods no controller manages (they are not recreated)
  wintroubleshoot fix HNS-NETWORK --node win-1 --force`),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), streams, live, args[0])
		},
	}
	cmd.Flags().StringVar(&o.node, "node", "", "the node to fix (required): NAME, or NAME=[SCHEME://]HOST[:PORT] to say how to reach it")
	cmd.Flags().StringVar(&o.choice, "choice", "", "which fix, when the finding offers several (their IDs are listed)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show the preview and stop")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "answer the confirmation without a prompt (headless use); a disruptive fix also needs --confirm")
	cmd.Flags().StringVar(&o.confirm, "confirm", "", "with --yes: the node name, which a disruptive fix needs typed back")
	cmd.Flags().BoolVar(&o.drain.Force, "force", false, "drain: also delete pods no controller manages (nothing recreates them)")
	cmd.Flags().BoolVar(&o.drain.DeleteEmptyDirData, "delete-emptydir-data", false, "drain: also evict pods with emptyDir volumes (their data is lost)")
	cmd.Flags().BoolVar(&live.noAudit, "no-audit", false, "run the fix even when the audit log cannot be written (nothing records it; prints a warning)")
	cmd.Flags().DurationVar(&o.drain.Timeout, "drain-timeout", 2*time.Minute, "drain: how long to wait for evicted pods to go")
	live.access.addFlagsExceptNode(cmd)
	return cmd
}

func (o *fixOptions) run(ctx context.Context, streams genericiooptions.IOStreams, live *liveOptions, probeID string) error {
	if o.node == "" {
		return usageErr("--node is required")
	}
	if name, _, ok := strings.Cut(o.node, "="); ok {
		live.access.nodes = append(live.access.nodes, o.node) // how to reach it, too
		o.node = name
	}
	probeID, err := resolveProbe(probes.Default(), probeID)
	if err != nil {
		return err
	}
	sess, err := live.connect(ctx, streams)
	if err != nil {
		return err
	}
	red, err := newRunRedactor("")
	if err != nil {
		return err
	}
	addSecrets(red, sess.secrets, streams.ErrOut)
	fixer, err := sess.fixer(red, live.noAudit, streams.ErrOut)
	if err != nil {
		return err
	}
	// Found before the probe and the prompt: nobody should confirm a fix that the
	// engine will refuse (it checks again before running).
	if err := fixer.Audit.Check(); err != nil && !o.dryRun {
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("%w: %w", engine.ErrRefused, err)}
	}
	fixer.Drain = o.drain
	var target *engine.Target
	for i := range sess.targets {
		if sess.targets[i].Name == o.node {
			target = &sess.targets[i]
		}
	}
	if target == nil {
		var names []string
		for _, t := range sess.targets {
			names = append(names, t.Name)
		}
		return usageErr("node %q is not one of the Windows nodes found%s", o.node, didYouMean(o.node, names))
	}
	var f, reach *probes.Finding
	for _, x := range sess.engine.ProbeNode(ctx, *target, func(engine.Event) {}) {
		switch x.Probe {
		case probeID:
			f = &x
		case probes.ReachID:
			reach = &x
		}
	}
	if f == nil && reach != nil {
		// The node could not be swept: say why, not that the probe was silent.
		return &exitError{code: report.ExitNothingJudged, err: fmt.Errorf("cannot fix %s on %s: %s\n%s",
			probeID, o.node, reach.Summary, strings.Join(reach.Details, "\n"))}
	}
	if f == nil {
		return &exitError{code: report.ExitNothingJudged, err: fmt.Errorf("%s gave no finding for %s", probeID, o.node)}
	}
	if f.Status < probes.Warn {
		fmt.Fprintf(streams.Out, "nothing to fix: %s %s on %s: %s\n", f.Status.Glyph(), f.Probe, f.Node, f.Summary)
		return nil
	}
	fix, err := o.pick(*f)
	if err != nil {
		return err
	}
	fmt.Fprint(streams.Out, fixer.Preview(ctx, *f, fix))
	if o.dryRun {
		fmt.Fprintln(streams.Out, "dry run: nothing was changed")
		return nil
	}
	if fix.Kind == probes.Manual {
		return &exitError{code: report.ExitFindings, err: errors.New("this fix is manual: carry out the steps above by hand")}
	}
	out, err := fixer.Apply(ctx, *f, fix, o.answer(streams, engine.ConfirmationFor(*f, fix)))
	if out.Output != "" {
		// What the node printed, through the run's redactor as the audit entry is.
		fmt.Fprintf(streams.Out, "output:\n%s\n", indent(red.String("fix-output.txt", out.Output)))
	}
	// The engine decided; this only maps its Result to what a shell sees.
	switch out.Result {
	case engine.Verified:
		fmt.Fprintln(streams.Out, out.Line())
		return nil
	case engine.Refused:
		return &exitError{code: report.ExitUsage, err: err}
	case engine.Declined:
		fmt.Fprintln(streams.Out, "declined: nothing was changed")
		return &exitError{code: report.ExitFindings}
	case engine.NotVerified:
		fmt.Fprintln(streams.Out, out.Line())
	}
	return &exitError{code: report.ExitFindings, err: err}
}

func (o *fixOptions) pick(f probes.Finding) (*probes.Fix, error) {
	fixes := engine.Runnable(f)
	if len(fixes) == 0 {
		return nil, &exitError{code: report.ExitFindings, err: fmt.Errorf("%s on %s offers no fix: %s", f.Probe, f.Node, f.Summary)}
	}
	if o.choice == "" && len(fixes) == 1 {
		return fixes[0], nil
	}
	var ids []string
	for _, x := range fixes {
		if x.ID == o.choice {
			return x, nil
		}
		ids = append(ids, fmt.Sprintf("%s (%s)", x.ID, x.Title))
	}
	return nil, usageErr("%s offers several fixes; pick one with --choice: %s", f.Probe, strings.Join(ids, "; "))
}

// answer is the person's answer to the confirmation: --yes (with --confirm) headless, else
// what they type at the terminal. Without a terminal and --yes the engine refuses.
func (o *fixOptions) answer(streams genericiooptions.IOStreams, c engine.Confirmation) engine.Answer {
	in, ok := streams.In.(*os.File)
	if o.yes || !ok || !term.IsTerminal(int(in.Fd())) {
		return engine.HeadlessAnswer(o.yes, o.confirm)
	}
	fmt.Fprint(streams.Out, c.Question())
	line, _ := bufio.NewReader(streams.In).ReadString('\n')
	return engine.Typed(line)
}

// fixer builds the fix runner of a session. Its audit log is redacted by red; noAudit
// (--no-audit) runs fixes without one, said loudly on warn because nothing will then
// record what was changed.
func (s *session) fixer(red *redact.Redactor, noAudit bool, warn io.Writer) (*engine.Fixer, error) {
	targets := map[string]engine.Target{}
	for _, t := range s.targets {
		targets[t.Name] = t
	}
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	x := &engine.Fixer{Engine: s.engine, Targets: targets, User: who}
	if noAudit {
		fmt.Fprintln(warn, "warning: --no-audit: fixes run now are recorded nowhere (no audit log)")
	} else {
		x.Audit = &engine.Audit{Path: engine.DefaultAuditPath(), Redact: red}
	}
	if s.client != nil {
		x.Kube = s.client
		x.Refresh = func(ctx context.Context) error {
			_, err := s.client.Collect(ctx, s.engine.Tree)
			return err
		}
	}
	return x, nil
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
