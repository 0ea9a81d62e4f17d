package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
)

// nodeAccess are the flags that say how to reach Windows nodes. Passwords never come from
// argv: only from an environment variable, a file, a prompt or a Kubernetes Secret.
type nodeAccess struct {
	transport        string
	nodes            []string // name=[scheme://]host[:port]
	user             string
	passwordEnv      string
	passwordFile     string
	passwordPrompt   bool
	passwordSecret   string
	secretKubeconfig string
	winrmAuth        string
	winrmCA          string
	winrmInsecure    bool
	winrmBasicHTTP   bool
	sshKey           string
	sshAgent         bool
	knownHosts       string
	sshInsecure      bool
	concurrency      int
	timeout          time.Duration
}

func (a *nodeAccess) addFlags(cmd *cobra.Command) {
	a.addFlagsExceptNode(cmd)
	cmd.Flags().StringArrayVar(&a.nodes, "node", nil, "node address override, repeatable: NAME=HOST[:PORT] or NAME=ssh://HOST[:PORT] (default: the node's InternalIP); with no cluster, the list of nodes to probe")
}

// addFlagsExceptNode is for commands whose --node means something of their own.
func (a *nodeAccess) addFlagsExceptNode(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.transport, "transport", "winrm-https", "how to reach nodes: winrm-https (5986), winrm (5985, needs AllowUnencrypted on the node), ssh (22), or local (run on the Windows node itself)")
	f.StringVar(&a.user, "user", "Administrator", "user name on the Windows nodes")
	f.StringVar(&a.passwordEnv, "password-env", "WTS_PASSWORD", "environment variable holding the node password")
	f.StringVar(&a.passwordFile, "password-file", "", "file holding the node password (first line)")
	f.BoolVar(&a.passwordPrompt, "password-prompt", false, "ask for the node password on the terminal")
	f.StringVar(&a.passwordSecret, "password-secret", "", "Kubernetes Secret holding the node password: NAMESPACE/NAME[:KEY], e.g. the Anthos windows-node-password Secret")
	f.StringVar(&a.secretKubeconfig, "password-secret-kubeconfig", "", "kubeconfig of the cluster holding --password-secret (e.g. the Anthos admin cluster); default: the same cluster")
	f.StringVar(&a.winrmAuth, "winrm-auth", "ntlm", "WinRM authentication: ntlm or basic")
	f.StringVar(&a.winrmCA, "winrm-ca-file", "", "PEM bundle to verify the nodes' WinRM HTTPS certificates (default: system roots)")
	f.BoolVar(&a.winrmBasicHTTP, "winrm-allow-basic-over-http", false, "allow --winrm-auth basic with --transport winrm (plain HTTP), which sends the password in clear (insecure; refused without this flag)")
	f.BoolVar(&a.winrmInsecure, "winrm-insecure-skip-tls-verify", false, "do not verify WinRM HTTPS certificates (insecure; prints a warning)")
	f.StringVar(&a.sshKey, "ssh-key", "", "private key file for SSH")
	f.BoolVar(&a.sshAgent, "ssh-agent", false, "authenticate SSH with the keys in ssh-agent (SSH_AUTH_SOCK)")
	f.StringVar(&a.knownHosts, "ssh-known-hosts", "", "known_hosts file to verify node host keys (default ~/.ssh/known_hosts)")
	f.BoolVar(&a.sshInsecure, "ssh-insecure-ignore-host-key", false, "do not verify SSH host keys (insecure; prints a warning)")
	f.IntVar(&a.concurrency, "concurrency", 32, "nodes probed at once (each holds one WinRM shell or SSH session)")
	f.DurationVar(&a.timeout, "timeout", 2*time.Minute, "time limit for one node's sweep")
}

// override is one parsed --node flag.
type override struct {
	name string
	kind transport.Kind
	host string
	port int
}

func parseOverride(s string, def transport.Kind) (override, error) {
	name, addr, ok := strings.Cut(s, "=")
	if !ok || name == "" || addr == "" {
		return override{}, fmt.Errorf("--node %q: want NAME=HOST[:PORT] or NAME=SCHEME://HOST[:PORT]", s)
	}
	o := override{name: name, kind: def}
	if scheme, rest, ok := strings.Cut(addr, "://"); ok {
		k, err := transport.ParseKind(scheme)
		if err != nil {
			return override{}, fmt.Errorf("--node %q: %w", s, err)
		}
		o.kind, addr = k, rest
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		o.host = strings.Trim(addr, "[]")
		return o, nil
	}
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		return override{}, fmt.Errorf("--node %q: port %q is not a port number", s, port)
	}
	o.host, o.port = host, p
	return o, nil
}

// config builds the transport config of one node (without the password).
func (a *nodeAccess) config(kind transport.Kind, host string, port int) transport.Config {
	return transport.Config{
		Kind: kind, Host: host, Port: port, User: a.user,
		Auth: a.winrmAuth, CAFile: a.winrmCA, InsecureSkipTLSVerify: a.winrmInsecure,
		AllowBasicOverHTTP: a.winrmBasicHTTP,
		KeyFile:            a.sshKey, UseAgent: a.sshAgent, KnownHosts: a.knownHosts, InsecureIgnoreHostKey: a.sshInsecure,
		Timeout: a.timeout,
	}
}
