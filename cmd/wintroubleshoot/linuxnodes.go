package main

import (
	"encoding/json"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/probes/engine"
)

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
	f.BoolVar(&l.nodes, "linux-nodes", false, "also probe the cluster's Linux nodes (label kubernetes.io/os=linux), over SSH as --linux-user with --ssh-key or --ssh-agent, "+
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
			found = append(found, engine.Discovered{Name: n.Name, Address: n.InternalIP, OS: sweep.Linux})
		}
	}
	return found
}

// configure gives the Linux targets their own account; the Windows password is not
// offered to a Linux sshd when SSH has a key or an agent to authenticate with.
func (l *linuxAccess) configure(targets []engine.Target, ts transports) {
	for i := range targets {
		if targets[i].OS != sweep.Linux {
			continue
		}
		targets[i].Transport.User = l.user
		if !ts.needsPassword(transport.SSH) {
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
			if json.Unmarshal(b, &os) == nil && os.Kind == string(sweep.Linux) {
				kinds[f.Node], linux = string(sweep.Linux), true
			}
		}
	}
	if !linux {
		return nil
	}
	return kinds
}
