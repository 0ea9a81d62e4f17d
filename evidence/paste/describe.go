package paste

import (
	"slices"
	"strings"
)

// Describe says what a file that is not JSON looks like, for the decoders' errors: ""
// when it looks like nothing this package reads.
func (p *Parser) Describe(b []byte) string {
	if len(b) > 1<<20 {
		b = b[:1<<20]
	}
	var shapes []string
	for _, blk := range p.Split(string(b)) {
		for _, pt := range p.Recognize(blk) {
			switch pt.Shape {
			case Unrecognized, JSONText, YAMLText:
				continue
			}
			if s := string(pt.Shape); !slices.Contains(shapes, s) {
				shapes = append(shapes, s)
			}
		}
	}
	if len(shapes) == 0 {
		return ""
	}
	what := "this looks like " + strings.Join(shapes, " and ") + " output pasted from a console"
	for _, sh := range shapes {
		if !thin(Shape(sh)) {
			return what + "; run `wintroubleshoot import` on it"
		}
	}
	return what + ", which shows too little to judge: `wintroubleshoot import` keeps what it shows in its report; " +
		"collect the JSON the evidence table names (`wintroubleshoot probes` lists each file's command)"
}

// thin are outputs the importer reports but does not turn into evidence: what they show
// is too little for a probe's verdict (names without types, a table without podCIDRs).
func thin(s Shape) bool {
	switch s {
	case KubectlNodes, HnsDiag, NetshDump, WinVersion, PSError, OtherList, OtherTable,
		CrictlPods, CrictlPs, CtrContainers, CtrTasks, NetAdapters, NetIPInterfaces, SystemInfo:
		return true
	}
	return false
}

// Describe is Parser.Describe with patterns compiled for this one call: the decoders
// ask only when a file has already failed to decode.
func Describe(b []byte) string { return New().Describe(b) }

// Hint is Describe as a suffix for a decoder's error ("; this looks like ..."), or ""
// when the text looks like nothing this package reads.
func Hint(b []byte) string {
	if d := Describe(b); d != "" {
		return "; " + d
	}
	return ""
}
