//go:build !nodemo

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
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
	fleet              int
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
the scenario's after/ folder says. The password comes from an environment variable.

With --fleet N it serves N copies of the node from this one process, over WinRM on
plain HTTP (as --allow-unencrypted), each on a loopback port the system picks, for load
tests of wintroubleshoot or another client. It prints one JSON line per copy
({"copy":1,"node":...,"scenario":...,"host":"127.0.0.1","port":...,"url":...}), then a
line saying where they serve; when stopped (Ctrl-C or SIGTERM) it prints the HTTP
requests and commands the copies served, in words and as a JSON line
({"requests":...,"commands":...}).`),
		Example: strings.TrimSpace(`
  export WTS_PASSWORD=demo-only
  wintroubleshoot fakenode --scenario routes-missing --listen 127.0.0.1:5986 --https --cert-out /tmp/node.pem &
  wintroubleshoot --report --node win-1=127.0.0.1:5986 --winrm-ca-file /tmp/node.pem --winrm-auth basic
  wintroubleshoot fakenode --scenario healthy-sdn-l2bridge-docker --fleet 100 --latency 20ms`),
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
	f.IntVar(&o.fleet, "fleet", 0, "serve this many copies of the node over WinRM HTTP, on ports the system picks (see above)")
	_ = cmd.MarkFlagRequired("scenario")
	_ = cmd.RegisterFlagCompletionFunc("scenario", cobra.FixedCompletions(scenarios.Names(), cobra.ShellCompDirectiveNoFileComp))
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
	if o.fleet != 0 {
		return o.serveFleet(ctx, streams, fsys, node, password)
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

// fleetCopy is one line of the --fleet listing.
type fleetCopy struct {
	Copy     int    `json:"copy"`
	Node     string `json:"node"`
	Scenario string `json:"scenario"`
	Host     string `json:"host"`
	Port     int    `json:"port"`
	URL      string `json:"url"`
}

// serveFleet is --fleet: N copies of the node until ctx ends, then what they served.
func (o *fakenodeOptions) serveFleet(ctx context.Context, streams genericiooptions.IOStreams, fsys fs.FS, node, password string) error {
	switch {
	case o.fleet < 0:
		return usageErr("--fleet %d: want at least 1 copy", o.fleet)
	case o.fleet > maxFleet:
		return usageErr("--fleet %d: at most %d copies (one loopback port and a few goroutines each)", o.fleet, maxFleet)
	case o.https || o.sshListen != "" || o.certOut != "":
		return usageErr("--fleet serves WinRM over plain HTTP only: drop --https, --cert-out and --ssh-listen")
	}
	copies, err := fakenode.ServeCopies(ctx, fakenode.CopiesOptions{N: o.fleet, Scenario: fsys, Node: node,
		User: o.user, Password: password, Latency: o.latency,
		Faults:  fakenode.FaultSet{DropMidReply: o.drop, Hang: o.hang},
		Garbage: o.garbage, CmdletMissing: o.cmdletMissing})
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("starting the fleet: %w", err)}
	}
	defer copies.Close()
	enc := json.NewEncoder(streams.Out)
	for i, s := range copies.Servers {
		host, p, _ := net.SplitHostPort(s.Addr())
		port, _ := strconv.Atoi(p)
		if err := enc.Encode(fleetCopy{Copy: i + 1, Node: node, Scenario: o.scenario, Host: host, Port: port, URL: s.URL()}); err != nil {
			return fmt.Errorf("listing the fleet: %w", err)
		}
	}
	fmt.Fprintf(streams.Out, "%d copies of node %s of %s: WinRM at the %d addresses above (user %s)\n",
		o.fleet, node, o.scenario, o.fleet, o.user)
	<-ctx.Done()
	requests, commands := copies.Served()
	fmt.Fprintf(streams.Out, "stopped; %d request(s) and %d command(s) served by %d copies\n", requests, commands, o.fleet)
	return enc.Encode(struct {
		Requests int64 `json:"requests"`
		Commands int64 `json:"commands"`
	}{requests, commands})
}

// maxFleet bounds --fleet: a typo of a zero too many should not exhaust the ports.
const maxFleet = 10000
