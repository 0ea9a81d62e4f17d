package probes

import (
	"errors"
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// C is one probe judging one node: the evidence to read and the builders of its finding.
// Each builder takes the status's summary and the evidence paths that justify it, so a
// finding cannot be made without saying where it comes from:
//
//	return c.Fail("missing routes to 10.200.1.0/24", routes, nodes).With(details...).WithFix(fix)
type C struct {
	id   string
	node string
	ev   evidence.Evidence
	// swallowed collects the optional files that were present but undecodable; the
	// registry turns the finding into an Error naming them (probe.go).
	swallowed *[]undecoded
}

// swallow notes an optional read that failed for a reason other than absence.
func (c C) swallow(path string, err error) {
	var miss *evidence.MissingError
	if err == nil || errors.As(err, &miss) || c.swallowed == nil {
		return
	}
	for _, u := range *c.swallowed {
		if u.path == path {
			return
		}
	}
	*c.swallowed = append(*c.swallowed, undecoded{path, err})
}

// Node is the node being judged.
func (c C) Node() string { return c.node }

// Path is where a key's file is for this node.
func (c C) Path(k evidence.Ref) string { return k.Path(c.node) }

// Pass, Warn, Fail and Skip build the probe's finding; paths are the evidence it rests on.
func (c C) Pass(summary string, paths ...string) Finding { return c.finding(Pass, summary, paths) }
func (c C) Warn(summary string, paths ...string) Finding { return c.finding(Warn, summary, paths) }
func (c C) Fail(summary string, paths ...string) Finding { return c.finding(Fail, summary, paths) }
func (c C) Skip(summary string, paths ...string) Finding { return c.finding(Skip, summary, paths) }

// Judge builds a finding of a status worked out at run time.
func (c C) Judge(s Status, summary string, paths ...string) Finding {
	return c.finding(s, summary, paths)
}

func (c C) finding(s Status, summary string, paths []string) Finding {
	f := Finding{Probe: c.id, Node: c.node, Status: s, Summary: summary}
	return f.Citing(paths...)
}

// With appends detail lines: why, expected against actual.
func (f Finding) With(details ...string) Finding {
	f.Details = append(slices.Clip(f.Details), details...)
	return f
}

// WithFix attaches the fix that would resolve it.
func (f Finding) WithFix(fix *Fix) Finding { f.Fix = fix; return f }

// Citing adds evidence paths, each once, in order.
func (f Finding) Citing(paths ...string) Finding {
	f.Evidence = slices.Clip(f.Evidence)
	for _, p := range paths {
		if p != "" && !slices.Contains(f.Evidence, p) {
			f.Evidence = append(f.Evidence, p)
		}
	}
	return f
}

// problem renders an evidence error as the finding: a file that could not be collected
// or decoded is an Error naming it; a file that is simply absent is a Skip (a folder
// assembled by hand may lack it).
func (c C) problem(path string, err error) Finding {
	var miss *evidence.MissingError
	if errors.As(err, &miss) && miss.Why == "" {
		return c.Skip(fmt.Sprintf("no evidence at %s", path), path).
			With("collect it with the command `wintroubleshoot probes --evidence` gives for it, or run wintroubleshoot against the node")
	}
	if errors.As(err, &miss) {
		f := c.finding(Error, fmt.Sprintf("could not collect %s", path), []string{path}).With(miss.Why)
		if hint := hintFor(miss.Why); hint != "" {
			f = f.With(hint)
		}
		return f
	}
	return c.finding(Error, fmt.Sprintf("could not judge: %v", err), []string{path})
}

// need reads evidence the probe cannot judge without: on failure, the finding to return.
func need[T any](c C, k evidence.Key[T]) (T, string, *Finding) {
	v, err := evidence.Get(c.ev, c.node, k)
	if err != nil {
		f := c.problem(c.Path(k), err)
		return v, c.Path(k), &f
	}
	return v, c.Path(k), nil
}

// optional reads evidence that may legitimately be absent (containerd config on a Docker
// node); ok is false when absent or not decodable, and an undecodable file makes the
// probe's finding an Error (swallow).
func optional[T any](c C, k evidence.Key[T]) (T, bool) {
	v, err := evidence.Get(c.ev, c.node, k)
	c.swallow(c.Path(k), err)
	return v, err == nil
}

// optionalNote reads evidence a probe can do without (events when RBAC denied them); note
// says why it is missing when it was not collected.
func optionalNote[T any](c C, k evidence.Key[T]) (v T, note string) {
	v, err := evidence.Get(c.ev, c.node, k)
	c.swallow(c.Path(k), err)
	if err != nil {
		if why := c.ev.CollectError(c.Path(k)); why != "" {
			return v, fmt.Sprintf("%s not collected: %s", c.Path(k), strings.SplitN(why, "\n", 2)[0])
		}
	}
	return v, ""
}

// shownNodes leaves out the nodes a pasted table gave (decode.UnknownFields): what
// they do not show (podCIDR, labels, providerID) would read as empty, so a probe that
// looks across the nodes reads those as absent, as it did before they were pasted.
func shownNodes(nodes []corev1.Node) []corev1.Node {
	var out []corev1.Node
	for _, n := range nodes {
		if decode.UnknownFields(n) == nil {
			out = append(out, n)
		}
	}
	return out
}

// pastedSelf says whether this node's object came from a pasted table, and what it does
// not show: the layout (AKS's providerID, RKE2's labels) is then unknown.
func (c C) pastedSelf() ([]string, bool) {
	nodes, ok := optional(c, evidence.ClusterNodes)
	if !ok {
		return nil, false
	}
	self, err := decode.FindNode(nodes, c.node)
	unknown := decode.UnknownFields(self)
	return unknown, err == nil && unknown != nil
}

// layoutUnknown: this node came from a pasted table, so what tells the layout is not known.
func (c C) layoutUnknown() bool { _, ok := c.pastedSelf(); return ok }

// clusterNodes reads cluster/nodes.json and finds this node in it.
func (c C) clusterNodes() ([]corev1.Node, corev1.Node, *Finding) {
	nodes, p, bad := need(c, evidence.ClusterNodes)
	if bad != nil {
		return nil, corev1.Node{}, bad
	}
	self, err := findNode(c.ev, nodes, c.node)
	if err != nil {
		if f, ok := c.notRegistered(nodes, p); ok {
			return nodes, self, &f
		}
		f := c.finding(Error, err.Error(), []string{p}).With("is the node folder named after the Kubernetes node? (nodes/<node-name>/)")
		return nodes, self, &f
	}
	// A node read from a pasted table shows its Ready condition, versions and
	// addresses only: a probe that needs more skips, naming the command (NODE-READY
	// judges what the table shows).
	if unknown := decode.UnknownFields(self); unknown != nil && c.id != "NODE-READY" {
		f := c.Skip(fmt.Sprintf("%s holds node %s as a pasted table showed it: %s not shown", p, c.node, strings.Join(unknown, ", ")), p).
			With("re-collect with: kubectl get node " + c.node + " -o json")
		return nodes, self, &f
	}
	return nodes, self, nil
}

func hintFor(why string) string {
	switch {
	case contains(why, "Get-HnsNetwork") && contains(why, "not recognized"):
		return "this build lacks the HNS cmdlets: copy hns.v2.psm1 from microsoft/SDN to C:\\k and re-run (the snippet imports it when present)"
	case contains(why, "not recognized"):
		return "a cmdlet or program is missing on this node (older Windows build, or the tool is not installed)"
	case contains(why, "Access is denied"), contains(why, "access denied"):
		return "run as a local administrator (the HNS and service queries need it)"
	}
	return ""
}

func contains(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// prefix parses a CIDR, masking host bits; ok false when invalid.
func prefix(s string) (netip.Prefix, bool) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, false
	}
	return p.Masked(), true
}

// notRegistered judges a node a complete node list does not hold: the API server's list
// (kubectl's JSON, no pasted row) names every registered node, so a node not in it is not
// registered (deleted, or its kubelet never joined): NODE-READY fails, the other cluster
// probes skip. When the list is not the API's whole answer (a pasted table), or a node
// there is this one under another spelling (the folder named after the host, not the
// node: a different case, or its kubernetes.io/hostname label), it is not decided.
func (c C) notRegistered(nodes []corev1.Node, path string) (Finding, bool) {
	if len(nodes) == 0 || len(shownNodes(nodes)) != len(nodes) {
		return Finding{}, false
	}
	for _, n := range nodes {
		if strings.EqualFold(n.Name, c.node) || strings.EqualFold(n.Labels[corev1.LabelHostname], c.node) {
			return Finding{}, false
		}
	}
	msg := fmt.Sprintf("node %s is not registered in the cluster: cluster/nodes.json lists %d node(s), not this one", c.node, len(nodes))
	if c.id != "NODE-READY" {
		return c.Skip(msg+" (NODE-READY judges it)", path), true
	}
	return c.Fail(msg, path).With("a deleted Node object, or a kubelet that never registered: its log says why (\"Unable to register node with API server\", or no --kubeconfig)",
		"the kubelet re-registers a deleted node when it restarts (Restart-Service kubelet); a new node needs its join (kubeadm join, or the installer's bootstrap)"), true
}
