package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

type fakenodeOptions struct {
	scenario, node     string
	listen, sshListen  string
	https, unencrypted bool
	certOut            string
	user, passwordEnv  string
	latency            time.Duration
	drop, hang         bool
	garbage            bool
	cmdletMissing      []string
	shell              string
}

func newFakenodeCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var o fakenodeOptions
	cmd := &cobra.Command{
		Use:   "fakenode --scenario NAME",
		Short: "Serve a fake Windows node (WinRM and/or SSH on loopback) from a recorded scenario",
		Long: strings.TrimSpace(`
Serves one node of a scenario over real WinRM (WS-Management, Basic and NTLM, HTTP or
HTTPS) and SSH, answering from the scenario's evidence, so wintroubleshoot, pywinrm,
Ansible or ssh can be tried without a Windows machine. Fix scripts change its state as
the scenario's after/ folder says. The password comes from an environment variable.`),
		Example: strings.TrimSpace(`
  export WTS_PASSWORD=demo-only
  wintroubleshoot fakenode --scenario routes-missing --listen 127.0.0.1:5986 --https --cert-out /tmp/node.pem &
  wintroubleshoot --report --node win-1=127.0.0.1:5986 --winrm-ca-file /tmp/node.pem --winrm-auth basic`),
		Args: cobra.NoArgs,
		// A test and demo aid: runnable, but not in --help, so the commands a user sees
		// are the ones for real nodes.
		Hidden: true,
		RunE:   func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), streams) },
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "scenario to answer from: "+strings.Join(scenarios.Names(), ", "))
	f.StringVar(&o.node, "node", "", "node of the scenario (default: its first Windows node)")
	f.StringVar(&o.listen, "listen", "127.0.0.1:5985", "WinRM address (empty: no WinRM)")
	f.BoolVar(&o.https, "https", false, "serve WinRM over HTTPS with a generated self-signed certificate")
	f.StringVar(&o.certOut, "cert-out", "", "with --https: write the certificate (PEM) here for clients to trust")
	f.BoolVar(&o.unencrypted, "allow-unencrypted", false, "like the Windows AllowUnencrypted setting: accept Basic/NTLM over plain HTTP")
	f.StringVar(&o.sshListen, "ssh-listen", "", "SSH address (empty: no SSH)")
	f.StringVar(&o.shell, "ssh-shell", "cmd", "the OpenSSH default shell to imitate: cmd or powershell")
	f.StringVar(&o.user, "node-user", "Administrator", "the account clients log in with (as wintroubleshoot --node-user)")
	f.StringVar(&o.passwordEnv, "password-env", "WTS_PASSWORD", "environment variable holding its password")
	f.DurationVar(&o.latency, "latency", 0, "fault: delay before every answer")
	f.BoolVar(&o.drop, "drop-mid-reply", false, "fault: cut connections in the middle of a reply")
	f.BoolVar(&o.hang, "hang", false, "fault: never answer commands")
	f.BoolVar(&o.garbage, "garbage", false, "fault: answer with bytes that are not a sweep reply")
	f.StringSliceVar(&o.cmdletMissing, "cmdlet-missing", nil, "fault: snippets that fail as on an old build (e.g. hns-networks.json)")
	_ = cmd.MarkFlagRequired("scenario")
	return cmd
}

func (o *fakenodeOptions) run(ctx context.Context, streams genericiooptions.IOStreams) error {
	fsys, meta, _, err := scenarios.Load(o.scenario)
	if err != nil {
		return usageErr("--scenario: %v", err)
	}
	node := o.node
	if node == "" && len(meta.Nodes) > 0 {
		node = meta.Nodes[0]
	}
	password := os.Getenv(o.passwordEnv)
	if password == "" {
		return usageErr("set the fake node's password in $%s", o.passwordEnv)
	}
	faults := &fakenode.Faults{}
	faults.Set(fakenode.FaultSet{Latency: o.latency, DropMidReply: o.drop, Hang: o.hang})
	fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node, Garbage: o.garbage, CmdletMissing: o.cmdletMissing})
	if o.listen != "" {
		srv, err := fakenode.StartWinRM(ctx, fake, fakenode.WinRMOptions{Addr: o.listen, TLS: o.https, User: o.user,
			Password: password, AllowUnencrypted: o.unencrypted, Faults: faults})
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("starting WinRM: %w", err)}
		}
		defer srv.Close()
		fmt.Fprintf(streams.Out, "node %s of %s: WinRM at %s\n", node, o.scenario, srv.URL())
		if o.https && o.certOut != "" {
			if err := os.WriteFile(o.certOut, srv.CertPEM(), 0o644); err != nil {
				return &exitError{code: 2, err: fmt.Errorf("writing --cert-out: %w", err)}
			}
			fmt.Fprintf(streams.Out, "certificate: %s\n", o.certOut)
		}
	}
	if o.sshListen != "" {
		srv, err := fakenode.StartSSH(ctx, fake, fakenode.SSHOptions{Addr: o.sshListen, User: o.user, Password: password,
			HostKeySeed: o.scenario + "/" + node, DefaultShell: o.shell, Faults: faults})
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("starting SSH: %w", err)}
		}
		defer srv.Close()
		fmt.Fprintf(streams.Out, "node %s of %s: SSH at %s, host key %s\n", node, o.scenario, srv.Addr(), ssh.FingerprintSHA256(srv.HostKey()))
	}
	<-ctx.Done()
	fmt.Fprintf(streams.Out, "stopped; %d command(s) served\n", len(fake.Commands()))
	return nil
}
