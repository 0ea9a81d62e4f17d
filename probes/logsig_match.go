package probes

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// sigTable is the signature table compiled: built once per process (compiledSignatures),
// because a fleet judges every node's logs with it, ten probes a node. Each signature
// keeps the literals one of which every line it matches contains (lowercased), so a line
// is handed to a regexp only when a literal of that signature is in it: most log lines
// hold none, and a literal search over the whole log is a vectorised byte scan where the
// regexps backtrack line by line. The idea is ripgrep's literal prefilter (and Go's own
// literal-prefix optimisation), applied to every literal of the pattern, not its prefix.
type sigTable struct {
	sigs  []signature
	res   []*regexp.Regexp
	lits  [][]string // per signature; nil: no literal is required, the regexp sees every line
	noise []string
}

// compiledSignatures is the table, compiled on first use. It is immutable once built,
// so every goroutine of a run shares it.
var compiledSignatures = sync.OnceValue(func() *sigTable { return compileSignatures(signatures(), noise()) })

func compileSignatures(sigs []signature, noisy []string) *sigTable {
	t := &sigTable{sigs: sigs, noise: noisy, res: make([]*regexp.Regexp, len(sigs)), lits: make([][]string, len(sigs))}
	for i, s := range sigs {
		t.res[i] = regexp.MustCompile(`(?i)` + s.re)
		t.lits[i] = requiredLiterals(`(?i)` + s.re)
	}
	return t
}

// requiredLiterals are lowercased ASCII strings one of which is in every text the
// pattern matches, or nil when no such set is known.
func requiredLiterals(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	return required(re.Simplify())
}

func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := strings.ToLower(string(re.Rune))
		if !isASCII(s) {
			return nil
		}
		return []string{s}
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part is in a match: keep the part whose literals are the most selective
		// (the longest shortest one).
		var best []string
		for _, sub := range re.Sub {
			if l := required(sub); l != nil && shortest(l) > shortest(best) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		// One branch is in a match: its literals, whichever it is.
		var all []string
		for _, sub := range re.Sub {
			l := required(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

func shortest(l []string) int {
	if len(l) == 0 {
		return 0
	}
	n := len(l[0])
	for _, s := range l[1:] {
		n = min(n, len(s))
	}
	return n
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lineHit is one line of a log that matched signature sig.
type lineHit struct {
	sig  int
	text string // trimmed
}

// logScan is what one log (or one node's event messages) gave: the hits in line order
// (and, on a line, in table order), and how many lines were dropped as noise.
type logScan struct {
	hits    []lineHit
	ignored int
}

// scan runs every signature over every line of text in one pass per literal. A line
// holding a byte outside ASCII is judged the slow way (every regexp, Unicode lowering)
// so that case folding beyond ASCII (the Kelvin sign is a k to (?i)) is never missed.
func (t *sigTable) scan(text string) logScan {
	low := asciiLower(text)
	cand := map[int][]int{} // line start -> the signatures with a literal on that line
	noisy := map[int]bool{}
	slow := map[int]bool{}
	for i := 0; i < len(low); i++ {
		if low[i] >= utf8.RuneSelf {
			start := strings.LastIndexByte(low[:i], '\n') + 1
			slow[start] = true
			end := strings.IndexByte(low[i:], '\n')
			if end < 0 {
				break
			}
			i += end
		}
	}
	for _, n := range t.noise {
		findLines(low, n, func(start int) { noisy[start] = true })
	}
	for i, lits := range t.lits {
		if lits == nil {
			eachLine(low, func(start int) { cand[start] = append(cand[start], i) })
			continue
		}
		for _, l := range lits {
			findLines(low, l, func(start int) {
				if c := cand[start]; len(c) == 0 || c[len(c)-1] != i {
					cand[start] = append(cand[start], i)
				}
			})
		}
	}
	var out logScan
	for start := range noisy {
		if !slow[start] {
			out.ignored++
		}
	}
	starts := make([]int, 0, len(cand)+len(slow))
	for start := range cand {
		starts = append(starts, start)
	}
	for start := range slow {
		if _, ok := cand[start]; !ok {
			starts = append(starts, start)
		}
	}
	slices.Sort(starts)
	for _, start := range starts {
		line := text[start:]
		if end := strings.IndexByte(line, '\n'); end >= 0 {
			line = line[:end]
		}
		switch {
		case slow[start]:
			t.scanSlow(line, &out)
		case noisy[start]:
		default:
			for _, i := range cand[start] {
				if t.res[i].MatchString(line) {
					out.hits = append(out.hits, lineHit{sig: i, text: strings.TrimSpace(line)})
				}
			}
		}
	}
	return out
}

// scanSlow is the line judged as the table is written: Unicode lowering for the noise,
// every regexp.
func (t *sigTable) scanSlow(line string, out *logScan) {
	low := strings.ToLower(line)
	if slices.ContainsFunc(t.noise, func(n string) bool { return strings.Contains(low, n) }) {
		out.ignored++
		return
	}
	for i, re := range t.res {
		if re.MatchString(line) {
			out.hits = append(out.hits, lineHit{sig: i, text: strings.TrimSpace(line)})
		}
	}
}

// eachLine calls f with the start of every line of s (split at "\n", as strings.Split
// does, the last one possibly empty).
func eachLine(s string, f func(start int)) {
	f(0)
	for i := range len(s) {
		if s[i] == '\n' {
			f(i + 1)
		}
	}
}

// findLines calls f with the start of every line of s holding lit (once per line).
func findLines(s, lit string, f func(start int)) {
	from := 0
	for from <= len(s) {
		i := strings.Index(s[from:], lit)
		if i < 0 {
			return
		}
		pos := from + i
		start := strings.LastIndexByte(s[:pos], '\n') + 1
		f(start)
		end := strings.IndexByte(s[pos:], '\n')
		if end < 0 {
			return
		}
		from = pos + end + 1
	}
}

// asciiLower lowers A-Z only, so every byte keeps its offset.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// scanLogs runs the signature table over the given log keys and, with events, the
// messages of this node's events (FailedCreatePodSandBox and the other kubelet
// reasons). It returns the matches and the paths it read.
//
// Each log is scanned once per run, whichever of the probes asks first: the scan is kept
// in the evidence memo under the log's path (a Tree forgets it when the log changes).
// The events of the whole cluster are scanned once too, into matches per node.
func (c C) scanLogs(events bool, keys ...evidence.Key[[]byte]) ([]logMatch, []string, int) {
	t := compiledSignatures()
	var out []logMatch
	var read []string
	ignored := 0
	add := func(p string, s logScan) {
		read = append(read, p)
		ignored += s.ignored
		for _, h := range s.hits {
			out = append(out, logMatch{sig: t.sigs[h.sig], path: p, text: h.text})
		}
	}
	for _, k := range keys {
		b, ok := optional(c, k)
		if !ok {
			continue
		}
		p := c.Path(k)
		add(p, memoized(c.ev.Memo, p, logScanMemo, func() logScan { return t.scan(string(b)) }))
	}
	if events {
		if evs, ok := optional(c, evidence.Events); ok {
			p := c.Path(evidence.Events)
			byNode := memoized(c.ev.Memo, p, eventScanMemo, func() map[string]logScan { return t.scanEvents(evs) })
			add(p, byNode[c.node])
		}
	}
	return out, read, ignored
}

// The memo's type names for scans (beside the decoded values, which are keyed by the
// evidence name).
const (
	logScanMemo   = "probes.logScan"
	eventScanMemo = "probes.eventScan"
)

// memoized is the value kept in memo for path and typ, made by mk the first time.
func memoized[T any](memo *evidence.Memo, path, typ string, mk func() T) T {
	if v, ok := memo.Get(path, typ); ok {
		return v.(T)
	}
	v := mk()
	memo.Put(path, typ, v)
	return v
}

// scanEvents judges every event's "reason: message" once, as one line whatever it holds,
// and files the result under the node that reported it (its source host and, when
// another, its reporting instance).
func (t *sigTable) scanEvents(evs []corev1.Event) map[string]logScan {
	out := map[string]logScan{}
	for _, e := range evs {
		var s logScan
		t.scanLine(e.Reason+": "+e.Message, &s)
		if len(s.hits) == 0 && s.ignored == 0 {
			continue
		}
		nodes := []string{e.Source.Host}
		if e.ReportingInstance != e.Source.Host {
			nodes = append(nodes, e.ReportingInstance)
		}
		for _, n := range nodes {
			if n == "" {
				continue
			}
			cur := out[n]
			cur.hits = append(cur.hits, s.hits...)
			cur.ignored += s.ignored
			out[n] = cur
		}
	}
	return out
}

// scanLine judges one line: dropped as noise, else every signature whose literal it
// holds (every signature, on a line that is not ASCII).
func (t *sigTable) scanLine(line string, out *logScan) {
	if !isASCII(line) {
		t.scanSlow(line, out)
		return
	}
	low := asciiLower(line)
	if slices.ContainsFunc(t.noise, func(n string) bool { return strings.Contains(low, n) }) {
		out.ignored++
		return
	}
	for i, lits := range t.lits {
		if lits == nil || slices.ContainsFunc(lits, func(l string) bool { return strings.Contains(low, l) }) {
			if t.res[i].MatchString(line) {
				out.hits = append(out.hits, lineHit{sig: i, text: strings.TrimSpace(line)})
			}
		}
	}
}
