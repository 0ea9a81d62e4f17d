package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport/local"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport/ssh"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// dialer opens transports; it warns once on stderr about each insecure option in use.
func dialer(warn io.Writer) func(ctx context.Context, cfg transport.Config) (transport.Transport, error) {
	var tlsOnce, sshOnce sync.Once // the engine dials from many goroutines
	return func(_ context.Context, cfg transport.Config) (transport.Transport, error) {
		switch cfg.Kind {
		case transport.WinRM, transport.WinRMHTTPS:
			if cfg.InsecureSkipTLSVerify {
				tlsOnce.Do(func() {
					fmt.Fprintln(warn, "warning: WinRM certificates are not verified (--winrm-insecure-skip-tls-verify)")
				})
			}
			return winrm.New(cfg)
		case transport.SSH:
			if cfg.InsecureIgnoreHostKey {
				sshOnce.Do(func() {
					fmt.Fprintln(warn, "warning: SSH host keys are not verified (--ssh-insecure-ignore-host-key)")
				})
			}
			return ssh.New(cfg)
		case transport.Local:
			return local.New()
		}
		return nil, fmt.Errorf("unknown transport %q", cfg.Kind)
	}
}

// kubeActions adapts the cluster client to the fix runner: drain waits a bounded time for
// evicted pods, as kubectl drain does.
type kubeActions struct {
	*kube.Client
}

func (k kubeActions) Drain(ctx context.Context, node string) ([]string, error) {
	res, err := k.Client.Drain(ctx, node, kube.DrainOptions{Timeout: 2 * time.Minute})
	return res.Evicted, err
}

// extraCommands are the subcommands beyond analyze and version.
func extraCommands(_ context.Context, streams genericiooptions.IOStreams, live *liveOptions) []*cobra.Command {
	return []*cobra.Command{
		newDemoCmd(streams),
		newFixCmd(streams, live),
		newFakenodeCmd(streams),
		newSnapshotCmd(streams, live),
		newRedactCmd(streams),
		newDiffCmd(streams),
		newProbesCmd(streams),
		newImportCmd(streams),
	}
}

// newProbesCmd lists the probes: what each judges and the evidence it reads, so a support
// engineer knows which files to ask a customer for. -o markdown prints the table README.md
// carries.
func newProbesCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "probes",
		Short:   "List the probes, what each judges and the evidence it reads",
		Example: "  wintroubleshoot probes\n  wintroubleshoot probes -o markdown",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			reg := probes.Default()
			switch output {
			case "markdown":
				_, err := io.WriteString(streams.Out, reg.Markdown())
				return err
			case "text":
			default:
				return fmt.Errorf("unknown output %q for probes (want text or markdown)", output)
			}
			w := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PROBE\tJUDGES\tREADS")
			for _, p := range reg.Probes() {
				fmt.Fprintf(w, "%s\t%s\t%s\n", p.ID(), p.Title(), strings.Join(p.ReadPaths("<node>"), ", "))
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or markdown")
	return cmd
}
