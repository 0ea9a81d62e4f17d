package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/probes/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes/report"
)

type fixOptions struct {
	node            string
	choice          string
	dryRun          bool
	yes             bool
	allowDisruptive bool
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

Disruptive fixes (restarting the runtime, drain, deleting the node) never run with --yes
alone: they also need --allow-disruptive.`),
		Example: strings.TrimSpace(`
  # see what would run, change nothing
  wintroubleshoot fix SVC-KUBELET --node win-1 --dry-run

  # run it after a confirmation prompt
  WTS_PASSWORD=... wintroubleshoot fix NET-ROUTES --node win-1

  # headless, including a disruptive choice
  wintroubleshoot fix SVC-REBOOT --node win-1 --choice delete-node --yes --allow-disruptive`),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), streams, live, args[0])
		},
	}
	cmd.Flags().StringVar(&o.node, "node", "", "the node to fix (required): NAME, or NAME=[SCHEME://]HOST[:PORT] to say how to reach it")
	cmd.Flags().StringVar(&o.choice, "choice", "", "which fix, when the finding offers several (their IDs are listed)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show the preview and stop")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "do not ask for confirmation (headless use)")
	cmd.Flags().BoolVar(&o.allowDisruptive, "allow-disruptive", false, "allow fixes marked disruptive to run with --yes")
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
	if _, ok := probes.Default().Get(probeID); !ok {
		return usageErr("unknown probe %q", probeID)
	}
	sess, err := live.connect(ctx, streams)
	if err != nil {
		return err
	}
	fixer, err := sess.fixer()
	if err != nil {
		return err
	}
	var target *engine.Target
	for i := range sess.targets {
		if sess.targets[i].Name == o.node {
			target = &sess.targets[i]
		}
	}
	if target == nil {
		return usageErr("node %q is not one of the Windows nodes found", o.node)
	}
	var f *probes.Finding
	for _, x := range sess.engine.ProbeNode(ctx, *target, func(engine.Event) {}) {
		if x.Probe == probeID {
			f = &x
		}
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
	fmt.Fprint(streams.Out, engine.Preview(*f, fix))
	if o.dryRun {
		fmt.Fprintln(streams.Out, "dry run: nothing was changed")
		return nil
	}
	if fix.Kind == probes.Manual {
		return &exitError{code: report.ExitFindings, err: errors.New("this fix is manual: carry out the steps above by hand")}
	}
	if ok, err := o.confirm(streams, fix); err != nil || !ok {
		fixer.Declined(*f, fix)
		if err != nil {
			return err
		}
		fmt.Fprintln(streams.Out, "declined: nothing was changed")
		return &exitError{code: report.ExitFindings}
	}
	out, err := fixer.Apply(ctx, *f, fix, o.allowDisruptive || !o.yes)
	if out.Output != "" {
		fmt.Fprintf(streams.Out, "output:\n%s\n", indent(out.Output))
	}
	if err != nil {
		code := report.ExitFindings
		if errors.Is(err, engine.ErrRefused) {
			code = report.ExitUsage
		}
		return &exitError{code: code, err: err}
	}
	fmt.Fprintf(streams.Out, "%s: %s %s %s\n", out.Result, out.After.Status.Glyph(), out.After.Probe, out.After.Summary)
	if out.Result != "verified" {
		return &exitError{code: report.ExitFindings}
	}
	return nil
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

// confirm asks on the terminal; disruptive fixes need the node name typed back.
func (o *fixOptions) confirm(streams genericiooptions.IOStreams, fix *probes.Fix) (bool, error) {
	if o.yes {
		if fix.Disruptive && !o.allowDisruptive {
			return false, usageErr("this fix is disruptive: --yes alone does not run it; add --allow-disruptive")
		}
		return true, nil
	}
	in, ok := streams.In.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return false, usageErr("no terminal to confirm on: pass --yes (and --allow-disruptive for disruptive fixes)")
	}
	question := "Run this fix? [y/N] "
	if fix.Disruptive {
		question = fmt.Sprintf("This is disruptive. Type the node name (%s) to run it: ", o.node)
	}
	fmt.Fprint(streams.Out, question)
	line, _ := bufio.NewReader(streams.In).ReadString('\n')
	line = strings.TrimSpace(line)
	if fix.Disruptive {
		return line == o.node, nil
	}
	return strings.EqualFold(line, "y") || strings.EqualFold(line, "yes"), nil
}

// fixer builds the fix runner of a session.
func (s *session) fixer() (*engine.Fixer, error) {
	targets := map[string]engine.Target{}
	for _, t := range s.targets {
		targets[t.Name] = t
	}
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	x := &engine.Fixer{Engine: s.engine, Targets: targets, Audit: &engine.Audit{Path: engine.DefaultAuditPath()}, User: who}
	if s.client != nil {
		x.Kube = kubeActions{s.client}
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
