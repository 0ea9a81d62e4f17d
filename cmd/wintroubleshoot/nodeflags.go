package main

import (
	"encoding/json"
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transports"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
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
	concurrency      int
	timeout          time.Duration
	nodeLogSince     time.Duration // node log query: how far back (kube.NodeLogOptions)
	nodeLogMax       int
	kubeQPS          float32 // the API client's rate limit (kube.FleetRateLimit); 0: sized for --concurrency
	kubeBurst        int
	// linux brings Linux workers in (--linux-nodes, --linux-user).
	linux linuxAccess
	// reg holds each transport's own options; made once, because the same nodeAccess
	// adds its flags to several commands and the values must land in one place.
	reg transport.Registry
	// flags is a flag set these options were bound to (any one: they share the
	// variables), to read the transports' own flags by name.
	flags *pflag.FlagSet
	// pods answers the question before the first HostProcess pod in advance; gate
	// asks it (podgate.go), installed once the run has a cluster.
	pods podFlags
	gate *podGate
}

// transport.Registry is the registry whose flags this nodeAccess added.
func (a *nodeAccess) transports() transport.Registry {
	if a.reg == nil {
		a.reg = transports.Registry()
	}
	return a.reg
}

func (a *nodeAccess) addFlags(cmd *cobra.Command) {
	a.addFlagsExceptNode(cmd)
	cmd.Flags().StringArrayVar(&a.nodes, "node", nil, "node address override, repeatable: NAME=HOST[:PORT], NAME=ssh://HOST[:PORT] or, for a Linux worker, NAME=linux://HOST[:PORT] (default: the node's InternalIP); with no cluster, the list of nodes to probe")
}

// addFlagsExceptNode is for commands whose --node means something of their own.
func (a *nodeAccess) addFlagsExceptNode(cmd *cobra.Command) {
	f := cmd.Flags()
	a.flags = f
	reg := a.transports()
	f.StringVar(&a.transport, "transport", string(transport.Auto), reg.Help())
	// --node-user, not --user: in kubectl --user picks the kubeconfig user, and that
	// flag is kept here with that meaning.
	f.StringVar(&a.user, "node-user", "Administrator", "user name on the Windows nodes")
	f.StringVar(&a.passwordEnv, "password-env", "WTS_PASSWORD", "environment variable holding the node password")
	f.StringVar(&a.passwordFile, "password-file", "", "file holding the node password (first line)")
	f.BoolVar(&a.passwordPrompt, "password-prompt", false, "ask for the node password on the terminal")
	f.StringVar(&a.passwordSecret, "password-secret", "", "Kubernetes Secret holding the node password: NAMESPACE/NAME[:KEY], e.g. the Anthos windows-node-password Secret")
	f.StringVar(&a.secretKubeconfig, "password-secret-kubeconfig", "", "kubeconfig of the cluster holding --password-secret (e.g. the Anthos admin cluster); default: the same cluster")
	reg.Bind(f)
	a.linux.addFlags(f)
	f.IntVar(&a.concurrency, "concurrency", 32, "nodes probed at once (each holds one WinRM shell or SSH session)")
	f.DurationVar(&a.timeout, "timeout", 2*time.Minute, "time limit for one node's sweep")
	f.DurationVar(&a.nodeLogSince, "node-log-since", 24*time.Hour, "node log query (logs a node's sweep did not give, through the API server): how far back; 0: all")
	f.IntVar(&a.nodeLogMax, "node-log-max-bytes", kube.DefaultNodeLogMax, "node log query: most bytes kept of each log (its tail)")
	f.Float32Var(&a.kubeQPS, "kube-api-qps", 0, "requests a second this client sends the API server at most (default: 8 per node of --concurrency, at least 50; -1: no client-side limit)")
	f.IntVar(&a.kubeBurst, "kube-api-burst", 0, "requests this client sends the API server at once at most (default: twice --kube-api-qps, at least 100)")
	a.pods.addFlags(f)
	// One password source at a time; the environment variable is the fallback of all.
	cmd.MarkFlagsMutuallyExclusive("password-file", "password-secret", "password-prompt")
	cmd.MarkFlagsMutuallyExclusive("allow-hostprocess", "no-hostprocess")
}

// parseOverride reads one --node flag: NAME=[SCHEME://]HOST[:PORT].
func parseOverride(ts transport.Registry, s string, def transport.Kind) (engine.Override, error) {
	name, addr, ok := strings.Cut(s, "=")
	if !ok || name == "" || addr == "" {
		return engine.Override{}, fmt.Errorf("--node %q: want NAME=HOST[:PORT] or NAME=SCHEME://HOST[:PORT]", s)
	}
	// The name becomes a folder (nodes/<name>/) and a key in every report: it must be
	// a Kubernetes node name, as the bundle reader demands of folders.
	if err := bundle.CheckNodeName(name); err != nil {
		return engine.Override{}, fmt.Errorf("--node %q: %w", s, err)
	}
	o := engine.Override{Name: name, Kind: def}
	if rest, ok := strings.CutPrefix(addr, linuxScheme+"://"); ok {
		o.Kind, o.OS, addr = transport.SSH, evidence.Linux, rest
	} else if scheme, rest, ok := strings.Cut(addr, "://"); ok {
		k, err := ts.Parse(scheme)
		if err != nil {
			return engine.Override{}, fmt.Errorf("--node %q: %w", s, err)
		}
		o.Kind, addr = k, rest
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		o.Host = strings.Trim(addr, "[]")
		if o.Host == "" {
			return engine.Override{}, fmt.Errorf("--node %q: no host after the scheme: want NAME=SCHEME://HOST[:PORT]", s)
		}
		return o, nil
	}
	if host == "" {
		return engine.Override{}, fmt.Errorf("--node %q: no host before the port", s)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		return engine.Override{}, fmt.Errorf("--node %q: port %q is not a port number", s, port)
	}
	o.Host, o.Port = host, p
	return o, nil
}

// check validates every node-access flag before anything connects, as kubectl's
// Validate does, and returns the default transport and the --node overrides: a bad
// value is a usage error (exit 2), never a per-node failure found after dialling.
func (a *nodeAccess) check() (transport.Kind, []engine.Override, error) {
	def, err := a.transports().Parse(a.transport)
	if err != nil {
		return "", nil, usageErr("--transport: %v", err)
	}
	if a.timeout <= 0 {
		return "", nil, usageErr("--timeout %s: want a positive duration such as 2m", a.timeout)
	}
	if a.flags != nil {
		if err := startTimeoutFor(a.flags.Lookup("hostprocess-start-timeout"), a.timeout, hostprocess.DefaultStartTimeout); err != nil {
			return "", nil, err
		}
	}
	if a.nodeLogSince < 0 || a.nodeLogMax <= 0 {
		return "", nil, usageErr("--node-log-since %s, --node-log-max-bytes %d: want a duration >= 0 and a positive size", a.nodeLogSince, a.nodeLogMax)
	}
	if a.concurrency <= 0 {
		return "", nil, usageErr("--concurrency %d: want at least 1", a.concurrency)
	}
	if err := a.transports().Validate(); err != nil {
		return "", nil, usageErr("%v", err)
	}
	var overrides []engine.Override
	seen := map[string]string{}
	for _, s := range a.nodes {
		ov, err := parseOverride(a.transports(), s, def)
		if err != nil {
			return "", nil, usageErr("%v", err)
		}
		// Two addresses for one name: the last would silently win, and a fix meant for
		// one machine would run on the other.
		if prev, dup := seen[ov.Name]; dup {
			return "", nil, usageErr("--node %s given twice (%s and %s): name each node once", ov.Name, prev, s)
		}
		seen[ov.Name] = s
		overrides = append(overrides, ov)
	}
	if err := localOnly(def, overrides, runtime.GOOS, elevated); err != nil {
		return "", nil, err
	}
	return def, overrides, nil
}

// installGate puts the pod question before the hostprocess transport, once per run.
func (a *nodeAccess) installGate(notice io.Writer, namespace func() string) *podGate {
	if a.gate != nil {
		return a.gate
	}
	value := func(name string) string {
		if a.flags == nil || a.flags.Lookup(name) == nil {
			return ""
		}
		return a.flags.Lookup(name).Value.String()
	}
	a.gate = &podGate{allow: a.pods.allow, forbid: a.pods.forbid, notice: notice, question: a.podQuestionFor(namespace, value)}
	a.gate.install(a.transports())
	return a.gate
}

// config builds the transport config of one node (without the password): the common
// fields, then what its transport registered.
func (a *nodeAccess) config(kind transport.Kind, host string, port int) transport.Config {
	return a.transports().Config(transport.Config{Kind: kind, Host: host, Port: port, User: a.user, Timeout: a.timeout})
}

// linuxScheme in --node NAME=linux://HOST[:PORT] says the node is a Linux worker: reached
// over SSH and swept with sh, whatever --transport says.
const linuxScheme = "linux"

// linuxAccess are the flags that bring Linux workers into a run. Off by default: the
// tool's subject is the Windows nodes, and a Linux sweep needs SSH access to every worker.
type linuxAccess struct {
	nodes bool
	user  string
}

func (l *linuxAccess) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&l.nodes, "linux-nodes", false, "also probe the cluster's Linux nodes (label kubernetes.io/os=linux): over SSH as --linux-user with --ssh-key or --ssh-agent, "+
		"else (--transport auto or hostprocess) through a short-lived privileged pod (--linux-pod-image) that nsenters the host, "+
		"checking the Linux side of the paths to the Windows nodes; without it only Windows nodes and --node NAME=linux://HOST entries are probed")
	f.StringVar(&l.user, "linux-user", "root", "user name on the Linux nodes; any other account runs the sweep through sudo -n")
}

// discovered lists the nodes a live run probes: the Windows nodes, and with
// --linux-nodes every other node as Linux (kube.Collect sorts both lists by name).
func (l *linuxAccess) discovered(d kube.Discovery) []engine.Discovered {
	var found []engine.Discovered
	win := map[string]bool{}
	for _, n := range d.Windows {
		win[n.Name] = true
		found = append(found, engine.Discovered{Name: n.Name, Address: n.InternalIP})
	}
	if !l.nodes {
		return found
	}
	for _, n := range d.All {
		if !win[n.Name] {
			found = append(found, engine.Discovered{Name: n.Name, Address: n.InternalIP, OS: evidence.Linux})
		}
	}
	return found
}

// configure gives the Linux targets their own account; the Windows password is not
// offered to a Linux sshd when SSH has a key or an agent to authenticate with.
func (l *linuxAccess) configure(targets []engine.Target, ts transport.Registry) {
	for i := range targets {
		if targets[i].OS != evidence.Linux {
			continue
		}
		targets[i].Transport.User = l.user
		if !ts.NeedsPassword(transport.SSH) {
			targets[i].Transport.Password = ""
		}
	}
}

// nodeKinds is each judged node's kind, read from its os.json, when the findings mix
// Linux and Windows nodes (nil otherwise: a Windows-only report names nodes alone).
func nodeKinds(read engine.EvidenceReader, findings []probes.Finding) map[string]string {
	if read == nil {
		return nil
	}
	kinds := map[string]string{}
	linux := false
	for _, f := range findings {
		if _, done := kinds[f.Node]; done || f.Node == "" {
			continue
		}
		kinds[f.Node] = "windows"
		if b, err := read(f.Node, "nodes/"+f.Node+"/os.json"); err == nil {
			var os struct{ Kind string }
			if json.Unmarshal(b, &os) == nil && os.Kind == string(evidence.Linux) {
				kinds[f.Node], linux = string(evidence.Linux), true
			}
		}
	}
	if !linux {
		return nil
	}
	return kinds
}
