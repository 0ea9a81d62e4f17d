package probes

import (
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
)

// check carries one probe's node and evidence, and turns evidence problems into findings:
// a file that could not be collected or decoded makes an Error finding naming it; a file
// that is simply absent makes a Skip (a folder assembled by hand may lack it).
type check struct {
	id   string
	node string
	ev   collectors.Evidence
}

func (c check) finding(s Status, summary string, details ...string) Finding {
	return Finding{Probe: c.id, Node: c.node, Status: s, Summary: summary, Details: details}
}

// problem renders an evidence error as a finding.
func (c check) problem(path string, err error) Finding {
	var miss *collectors.MissingError
	if errors.As(err, &miss) && miss.Why == "" {
		f := c.finding(Skip, fmt.Sprintf("no evidence at %s", path),
			"collect it with the command in fixtures/scenarios/README.md, or run wintroubleshoot against the node")
		f.Evidence = []string{path}
		return f
	}
	f := c.finding(Error, fmt.Sprintf("could not judge: %v", err))
	if errors.As(err, &miss) {
		f.Summary = fmt.Sprintf("could not collect %s", path)
		f.Details = []string{miss.Why}
		if hint := hintFor(miss.Why); hint != "" {
			f.Details = append(f.Details, hint)
		}
	}
	f.Evidence = []string{path}
	return f
}

// nodeFile reads and decodes one of the node's evidence files.
func nodeFile[T any](c check, name string, dec func(string, []byte) (T, error)) (T, string, *Finding) {
	p := collectors.NodeFile(c.node, name)
	v, err := readDecode(c.ev, p, dec)
	if err != nil {
		f := c.problem(p, err)
		return v, p, &f
	}
	return v, p, nil
}

// optional reads a node file that may legitimately be absent (containerd config on a
// Docker node); ok is false when absent or not decodable, with no finding.
func optional[T any](c check, name string, dec func(string, []byte) (T, error)) (T, bool) {
	v, err := readDecode(c.ev, collectors.NodeFile(c.node, name), dec)
	return v, err == nil
}

func readDecode[T any](ev collectors.Evidence, p string, dec func(string, []byte) (T, error)) (T, error) {
	typ := reflect.TypeFor[T]().String()
	if v, ok := ev.Memo.Get(p, typ); ok {
		r := v.(decoded[T])
		return r.v, r.err
	}
	v, err := readDecodeOnce(ev, p, dec)
	ev.Memo.Put(p, typ, decoded[T]{v, err})
	return v, err
}

// decoded is a memoized decode result, error included: a broken file stays broken.
type decoded[T any] struct {
	v   T
	err error
}

func readDecodeOnce[T any](ev collectors.Evidence, p string, dec func(string, []byte) (T, error)) (T, error) {
	var zero T
	b, err := ev.Read(p)
	if err != nil {
		return zero, err
	}
	// A snippet that failed can still have printed something ("[]" before crictl
	// failed): that output is not evidence of an empty list.
	if why := ev.CollectError(p); why != "" && !strings.HasPrefix(why, "exit 0") {
		return zero, &collectors.MissingError{Path: p, Why: why}
	}
	return dec(p, b)
}

// clusterNodes reads cluster/nodes.json and finds this node in it.
func (c check) clusterNodes() ([]corev1.Node, corev1.Node, *Finding) {
	nodes, err := readDecode(c.ev, collectors.ClusterNodes, decode.Nodes)
	if err != nil {
		f := c.problem(collectors.ClusterNodes, err)
		return nil, corev1.Node{}, &f
	}
	self, err := decode.FindNode(nodes, c.node)
	if err != nil {
		f := c.finding(Error, err.Error(), "is the node folder named after the Kubernetes node? (nodes/<node-name>/)")
		f.Evidence = []string{collectors.ClusterNodes}
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
