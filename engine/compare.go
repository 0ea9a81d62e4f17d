package engine

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// EvidenceDiff is one evidence file that differs between two nodes.
type EvidenceDiff struct {
	Name   string   // the key's name: "hns-networks.json", "cluster/nodes.json"
	A, B   string   // each side's path
	Lines  string   // "+3 -1 lines", or "only in A", "only in B"
	FirstA string   // the first line that differs, as A has it ("" when absent)
	FirstB string   // the same line as B has it
	Probes []string // the probes that read it, those judging the nodes differently first
	Judged []string // of Probes, those whose status differs between the nodes
}

// Compare lists the evidence that differs between node a (in evA) and node b (in evB),
// ranked by the probes it matters to: files read by a probe that judges the two nodes
// differently first, then by how many probes read them. Node names inside a file are
// made equal first, so two nodes of one pool compare on what matters.
func Compare(reg *probes.Registry, evA evidence.Evidence, a string, evB evidence.Evidence, b string) []EvidenceDiff {
	status := func(ev evidence.Evidence, node string) map[string]probes.Status {
		m := map[string]probes.Status{}
		for _, f := range reg.Run(node, ev) {
			m[f.Probe] = f.Status
		}
		return m
	}
	sa, sb := status(evA, a), status(evB, b)
	readers := map[string][]string{} // key name -> probe IDs
	keys := map[string]evidence.Ref{}
	var names []string
	for _, p := range reg.Probes() {
		for _, k := range p.Spec().Reads {
			n := k.Meta().Name
			if _, ok := keys[n]; !ok {
				keys[n] = k
				names = append(names, n)
			}
			if !slices.Contains(readers[n], p.ID()) {
				readers[n] = append(readers[n], p.ID())
			}
		}
	}
	var out []EvidenceDiff
	for _, n := range names {
		k := keys[n]
		pa, pb := k.Path(a), k.Path(b)
		ba, errA := evA.Read(pa)
		bb, errB := evB.Read(pb)
		d := EvidenceDiff{Name: n, A: pa, B: pb}
		switch {
		case errA != nil && errB != nil:
			continue
		case errA != nil:
			d.Lines = "only in B"
		case errB != nil:
			d.Lines = "only in A"
		case bytes.Equal(ba, bb):
			// One file read for both (the cluster's, in one tree): the same, though it
			// names both nodes and the names would be made neutral differently.
			continue
		default:
			la, lb := normalLines(ba, a), normalLines(bb, b)
			if slices.Equal(la, lb) {
				continue
			}
			d.Lines, d.FirstA, d.FirstB = lineDelta(la, lb)
		}
		for _, id := range readers[n] {
			if sa[id] != sb[id] {
				d.Judged = append(d.Judged, id)
			}
		}
		d.Probes = append(slices.Clone(d.Judged), slices.DeleteFunc(slices.Clone(readers[n]), func(id string) bool { return slices.Contains(d.Judged, id) })...)
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(x, y EvidenceDiff) int {
		return cmp.Or(cmp.Compare(len(y.Judged), len(x.Judged)), cmp.Compare(len(y.Probes), len(x.Probes)), strings.Compare(x.Name, y.Name))
	})
	return out
}

// normalLines splits a file into lines with CRLF, trailing blanks and the node's own
// name made neutral.
func normalLines(b []byte, node string) []string {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	if node != "" {
		b = bytes.ReplaceAll(b, []byte(node), []byte("<node>"))
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// lineDelta counts the lines only one side has (as multisets, so reordering alone is
// no difference in count) and finds the first line where the files part.
func lineDelta(a, b []string) (delta, firstA, firstB string) {
	count := map[string]int{}
	for _, l := range a {
		count[l]++
	}
	for _, l := range b {
		count[l]--
	}
	plus, minus := 0, 0
	for _, c := range count {
		if c > 0 {
			minus += c
		} else {
			plus -= c
		}
	}
	for i := 0; i < max(len(a), len(b)); i++ {
		la, lb := at(a, i), at(b, i)
		if la != lb {
			firstA, firstB = strings.TrimSpace(la), strings.TrimSpace(lb)
			break
		}
	}
	return fmt.Sprintf("+%d -%d lines", plus, minus), firstA, firstB
}

func at(ls []string, i int) string {
	if i < len(ls) {
		return ls[i]
	}
	return ""
}
