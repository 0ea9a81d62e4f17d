package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr is bad input: exit 2 with one line saying what to do.
func usageErr(format string, a ...any) error {
	return &exitError{code: report.ExitUsage, err: fmt.Errorf(format, a...)}
}

// Run is the whole program: parse args, do the work, return the exit code.
func Run(ctx context.Context, streams genericiooptions.IOStreams, args []string) int {
	return RunAs(ctx, streams, "wintroubleshoot", args)
}

// RunAs is Run for a program started as argv0: as kubectl-wintroubleshoot (a kubectl
// plugin), help and errors say "kubectl wintroubleshoot".
func RunAs(ctx context.Context, streams genericiooptions.IOStreams, argv0 string, args []string) int {
	root := newRootCmd(ctx, streams)
	renameInHelp(root, displayName(argv0))
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return report.ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(streams.ErrOut, safeLine("error: "+ee.err.Error()))
		}
		return ee.code
	}
	// cobra's own errors: unknown flags, wrong argument counts, flag marks.
	fmt.Fprintln(streams.ErrOut, safeLine("error: "+err.Error()+flagSuggestion(root, args, err.Error())))
	fmt.Fprintf(streams.ErrOut, "run '%s --help' for usage\n", root.CommandPath())
	return report.ExitUsage
}

// outputOptions are the flags every command that prints findings shares.
type outputOptions struct {
	format      string
	failOn      string
	verbose     bool
	redactRules string
	maxSize     int
}

func (o *outputOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.format, "output", "o", string(report.Text), report.FormatHelp())
	cmd.Flags().StringVar(&o.failOn, "fail-on", "fail", "lowest status that makes the exit code 1: warn, fail or error")
	// No -v: in kubectl -v is the log level; here this is a plain switch.
	cmd.Flags().BoolVar(&o.verbose, "verbose", false, "text output: show details of passing checks too")
	cmd.Flags().StringVar(&o.redactRules, "redact-rules", "", "YAML or JSON file of extra redaction rules for the report (the defaults always apply)")
	cmd.Flags().IntVar(&o.maxSize, "max-size", report.TicketSize,
		"markdown output: most characters the report may take, trimming passes, then warnings' excerpts and details first (0: no limit)")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return report.FormatCompletions(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]cobra.Completion{"warn", "fail", "error"}, cobra.ShellCompDirectiveNoFileComp))
}

func (o *outputOptions) parse() (report.Format, probes.Status, error) {
	f, err := report.ParseFormat(o.format)
	if err != nil {
		return "", 0, usageErr("--output: %v", err)
	}
	if o.maxSize < 0 {
		return "", 0, usageErr("--max-size %d: want a number of characters, or 0 for no limit", o.maxSize)
	}
	s, err := probes.ParseStatus(o.failOn)
	if err != nil || s < probes.Warn {
		return "", 0, usageErr("--fail-on %q: want warn, fail or error", o.failOn)
	}
	return f, s, nil
}

// colorFor says whether to colour output: only on a terminal, and never with NO_COLOR.
func colorFor(w any) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	if f, ok := w.(*os.File); ok {
		return term.IsTerminal(int(f.Fd()))
	}
	return false
}

func newRootCmd(ctx context.Context, streams genericiooptions.IOStreams) *cobra.Command {
	kube := kubeFlags()
	live := &liveOptions{kube: kube}
	var showVersion bool
	root := &cobra.Command{
		Use:   "wintroubleshoot",
		Short: "Find out why a Windows node of a Kubernetes cluster is broken, and fix it",
		Long: strings.TrimSpace(`
wintroubleshoot connects to the cluster (kubeconfig) and to each Windows node (WinRM or
SSH), runs its probes, explains each failure with the evidence, and offers fixes that are
previewed before they run and verified after.

Without node credentials, --transport hostprocess reaches each node through the Kubernetes
API in a short-lived HostProcess pod; it needs, in one namespace (--hostprocess-namespace):
pods create/get/list/watch/delete and pods/exec create (docs/rbac.yaml), and PodSecurity
privileged there. --transport auto (the default) picks per node: WinRM or SSH where an
address and credentials answer, else that pod; the report says which answered.

With no subcommand it opens the interactive screen; --report prints the findings instead.
With no cluster at hand, 'wintroubleshoot demo' runs against a built-in fleet of fake nodes.

Exit codes: 0 nothing at or above --fail-on; 1 findings at or above --fail-on;
2 usage or input error; 3 nothing could be judged (no node reached); 130 interrupted.`),
		Example: strings.TrimSpace(`
  # open the interactive screen on the current kubeconfig context
  wintroubleshoot

  # headless: judge every Windows node, Markdown ready to paste into a ticket
  WTS_PASSWORD=... wintroubleshoot --report --node-user Administrator -o markdown

  # mixed cluster: the Linux workers too, over SSH as root with a key (sh, no PowerShell)
  WTS_PASSWORD=... wintroubleshoot --report --linux-nodes --ssh-key ~/.ssh/id_ed25519

  # judge evidence collected by hand or by someone else
  wintroubleshoot analyze ./evidence-folder
  wintroubleshoot --report --from ./evidence-folder -o json`),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showVersion {
				return printVersion(streams.Out, buildVersion(releaseVersion), "")
			}
			if err := live.validate(); err != nil {
				return err
			}
			live.formatAsked = cmd.Flags().Changed("output")
			return live.run(cmd.Context(), streams)
		},
	}
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetIn(streams.In)
	kube.AddFlags(root.PersistentFlags())
	live.addFlags(root)
	root.Flags().BoolVar(&showVersion, "version", false, "print the version and exit, as the version command does")
	root.AddCommand(
		newAnalyzeCmd(streams),
		newVersionCmd(streams),
	)
	for _, c := range extraCommands(ctx, streams, live) {
		root.AddCommand(c)
	}
	addAgent(root, streams, live)
	wireTree(root, kube)
	return root
}

// kubeFlags are kubectl's cluster flags (--kubeconfig, --context, --user, -n, --server,
// ...) with their kubectl meaning, less three: --password, --username and --token would
// put credentials on the command line. The Windows account is --node-user.
func kubeFlags() *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	f.Password, f.BearerToken, f.Username = nil, nil, nil
	return f
}
