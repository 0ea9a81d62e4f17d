package redact

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// RuleLeaksPrefix starts the counted name of every gitleaks rule: "gitleaks:aws-access-token".
const RuleLeaksPrefix = "gitleaks:"

// leakRule is one of gitleaks' default rules, run on a line as gitleaks' detector runs
// it: the secret is the rule's secretGroup (or its first non-empty group, or the whole
// match), dropped when its entropy is at most the rule's, or when an allowlist (the
// global one or the rule's) allows it. Allowlists by path or commit cannot apply to
// evidence and are ignored, which only ever redacts more.
type leakRule struct {
	name    string
	re      *regexp.Regexp
	group   int
	entropy float64
	allow   []*config.Allowlist
}

// leaks is gitleaks' rule set with its keyword prefilter: one Aho-Corasick pass over a
// lower-cased block finds the lines (and the rules) that can match; only those lines
// meet a regex. Every default rule has keywords, so no rule runs on every line.
type leaks struct {
	rules  []leakRule
	trie   *ahocorasick.Trie
	byKW   [][]int32 // keyword (pattern index) -> rules
	always []int32   // rules without keywords
	global []*config.Allowlist
}

// sharedLeaks is gitleaks' rule set, compiled once per process: about 50 ms of regex
// compilation that every Redactor would otherwise repeat (the CLI builds several, the
// tests hundreds). It is immutable after compilation, and regexps are safe for
// concurrent use, so sharing it shares no state.
var sharedLeaks = sync.OnceValues(loadLeaks)

// loadLeaks compiles gitleaks' default configuration (config.DefaultConfig, the
// gitleaks.toml the module embeds), as gitleaks itself reads it, through a viper
// instance of its own (no global state). Rules that judge paths only (a .p12 file by
// its name) have no regex and are left out.
func loadLeaks() (*leaks, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("reading gitleaks' default rules: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("reading gitleaks' default rules: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("compiling gitleaks' default rules: %w", err)
	}
	lk := &leaks{global: cfg.Allowlists}
	kwAt := map[string]int32{}
	var kws []string
	for _, r := range cfg.GetOrderedRules() {
		if r.Regex == nil {
			continue
		}
		i := int32(len(lk.rules))
		lk.rules = append(lk.rules, leakRule{name: RuleLeaksPrefix + r.RuleID, re: r.Regex, group: r.SecretGroup, entropy: r.Entropy, allow: r.Allowlists})
		if len(r.Keywords) == 0 {
			lk.always = append(lk.always, i)
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			j, ok := kwAt[k]
			if !ok {
				j = int32(len(kws))
				kwAt[k] = j
				kws = append(kws, k)
				lk.byKW = append(lk.byKW, nil)
			}
			if !slices.Contains(lk.byKW[j], i) {
				lk.byKW[j] = append(lk.byKW[j], i)
			}
		}
	}
	lk.trie = ahocorasick.NewTrieBuilder().AddStrings(kws).Build()
	return lk, nil
}

// hit is a line a keyword pointed at and one rule to run on it. A hit carried from the
// line before (ctx >= 0, that line's start in the block) runs on both lines joined:
// gitleaks' rules allow a line break between a name and its value (<apiToken>, newline,
// the token), and only what falls in this line is replaced.
type hit struct {
	start, end int
	rule       int32
	ctx        int
}

// hits appends the (line, rule) pairs of a block whose keywords occur (low is the block
// lower-cased), and the same rules carried to the line after, sorted by line, each once.
func (lk *leaks) hits(dst []hit, b, low []byte) []hit {
	from := len(dst)
	lineStart, lineEnd := -1, -1
	lk.trie.Walk(low, func(end, n, pattern int64) bool {
		at := int(end - n + 1)
		if at >= lineEnd {
			lineStart = bytes.LastIndexByte(b[:at], '\n') + 1
			lineEnd = len(b)
			if k := bytes.IndexByte(b[at:], '\n'); k >= 0 {
				lineEnd = at + k + 1
			}
		}
		for _, r := range lk.byKW[pattern] {
			dst = append(dst, hit{lineStart, lineEnd, r, -1})
			dst = carry(dst, b, lineStart, lineEnd, r)
		}
		return true
	})
	if len(lk.always) > 0 {
		for off := 0; off < len(b); {
			next := len(b)
			if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
				next = off + i + 1
			}
			for _, r := range lk.always {
				dst = append(dst, hit{off, next, r, -1})
			}
			off = next
		}
	}
	h := dst[from:]
	slices.SortFunc(h, func(x, y hit) int {
		if x.start != y.start {
			return x.start - y.start
		}
		if x.rule != y.rule {
			return int(x.rule - y.rule)
		}
		return x.ctx - y.ctx
	})
	return append(dst[:from], slices.Compact(h)...)
}

// maxCarry is how many continued lines (a command split with \, ` or ^) a keyword
// reaches past the line after its own: curl on one line, its -u user:password three
// lines down.
const maxCarry = 8

// carry appends the hits of rule r on the line after the keyword's line [ctx, end), and
// on the lines after that while the line before ends in a continuation.
func carry(dst []hit, b []byte, ctx, end int, r int32) []hit {
	for n := 0; end < len(b) && n <= maxCarry; n++ {
		next := len(b)
		if k := bytes.IndexByte(b[end:], '\n'); k >= 0 {
			next = end + k + 1
		}
		dst = append(dst, hit{end, next, r, ctx})
		prev := bytes.TrimRight(b[ctx:end], " \t\r\n")
		if n > 0 || len(prev) == 0 {
			prev = bytes.TrimRight(b[:end], " \t\r\n")
		}
		if len(prev) == 0 || !bytes.ContainsRune([]byte("\\`^"), rune(prev[len(prev)-1])) {
			break
		}
		end = next
	}
	return dst
}

// any reports whether a keyword of some rule occurs in low (lower-cased text).
func (lk *leaks) any(low []byte) bool {
	return len(lk.always) > 0 || lk.trie.MatchFirst(low) != nil
}

// span is a secret found in a line, by the rule that found it.
type span struct {
	s, e int
	rule int32
}

// redactLine runs the rules of hits on line (b is the block the hits index, for the
// line before of a carried hit), appends the result to dst and counts what it replaced.
// The rules see the line with its escaped quotes unescaped (\" to "): a JSON document
// inside a log line, or a YAML or TOML double-quoted string, holds its values that way,
// and gitleaks' rules are written for the plain text. Secrets are mapped back to the
// line's own bytes and replaced there, so escapes around them stay as they were.
func (lk *leaks) redactLine(dst, line, b []byte, hits []hit, counts map[string]int) []byte {
	view, offs := unescapeView(line)
	views := [][]byte{view}
	if offs != nil {
		// The same view with the quotes that are not escaped made line breaks: such a
		// quote ends the string the escaped text is in, which to a rule is the end of
		// a line that ends a value (\s, \z). Each view finds what the other cannot.
		views = append(views, quotesBreak(view, line, offs))
	}
	var spans []span
	for _, view := range views {
		spans = lk.findAll(spans, view, b, hits)
	}
	return lk.replace(dst, line, offs, spans, counts)
}

// findAll runs the rules of hits on view, joined to the lines before for carried hits.
func (lk *leaks) findAll(spans []span, view, b []byte, hits []hit) []span {
	for _, h := range hits {
		if h.ctx < 0 || h.ctx > h.start || h.start > len(b) {
			spans = lk.find(spans, view, 0, h.rule)
			continue
		}
		// Joined without this line's indentation: a YAML block scalar indents a
		// value more than the few blanks a rule allows between a name and its value.
		prev, _ := unescapeView(bytes.TrimRight(b[h.ctx:h.start], "\r\n"))
		cur := bytes.TrimLeft(view, " \t")
		if len(cur) < len(view) {
			cur = view[len(view)-len(cur)-1:] // one blank of it stays: "\n  -u x" is "\n -u x"
		}
		indent := len(view) - len(cur)
		text := append(append(append(make([]byte, 0, len(prev)+1+len(cur)), prev...), '\n'), cur...)
		from := len(spans)
		spans = lk.find(spans, text, len(prev)+1, h.rule)
		for k := from; k < len(spans); k++ {
			spans[k].s += indent
			spans[k].e += indent
		}
	}
	return spans
}

// replace replaces the spans (in view offsets, mapped to line through offs) in line.
func (lk *leaks) replace(dst, line []byte, offs []int, spans []span, counts map[string]int) []byte {
	if len(spans) == 0 {
		return append(dst, line...)
	}
	slices.SortFunc(spans, func(x, y span) int { return x.s - y.s })
	last := 0
	for _, sp := range spans {
		s, e := sp.s, sp.e
		if offs != nil {
			s, e = offs[s], offs[e]
		}
		s, e = escapeSafe(line, s, e)
		s, e = unquoteSpan(line, s, e)
		s, e = scalarSpan(line, s, e)
		if s < last || e <= s || keepSpan(line, s, e) {
			continue
		}
		dst = append(dst, line[last:s]...)
		dst = appendReplacement(dst, line, s, e)
		last = e
		counts[lk.rules[sp.rule].name]++
	}
	return append(dst, line[last:]...)
}

// find appends the secrets rule i finds in text at or after base, made relative to base.
func (lk *leaks) find(dst []span, text []byte, base int, i int32) []span {
	r := &lk.rules[i]
	for _, loc := range r.re.FindAllSubmatchIndex(text, -1) {
		s, e := secretSpan(text, loc, r.group)
		for e > s && (text[e-1] == '\n' || text[e-1] == '\r') {
			e-- // gitleaks trims the line break a match may end on
		}
		if k := bytes.IndexByte(text[s:e], '\n'); k >= 0 {
			if s >= base {
				e = s + k // a secret never takes the line after
			} else if e > base {
				s = base // a secret across the break: this line's part
			}
		}
		if s < base || e <= s || bytes.Contains(text[s:e], []byte(Replacement)) || bytes.Contains([]byte(Replacement), text[s:e]) {
			continue
		}
		secret := string(text[s:e])
		if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
			continue
		}
		match, line := string(text[loc[0]:loc[1]]), string(text[base:])
		if allowed(lk.global, secret, match, line) || allowed(r.allow, secret, match, line) {
			continue
		}
		dst = append(dst, span{s - base, e - base, i})
	}
	return dst
}

// quotesBreak is view with each quote that was not escaped in line made a line break.
func quotesBreak(view, line []byte, offs []int) []byte {
	out := slices.Clone(view)
	for i, c := range out {
		if c == '"' && line[offs[i]] == '"' {
			out[i] = '\n'
		}
	}
	return out
}

// unescapeView is line with its backslash escapes of quotes, backslashes and blanks
// undone (\" \' \\ \/ \n \t \r, and \u00XX for ASCII, as Go's encoding/json writes <, >
// and &), and for each byte of it the offset in line where it starts; offs is nil when
// the line has no backslash.
func unescapeView(line []byte) ([]byte, []int) {
	if bytes.IndexByte(line, '\\') < 0 {
		return line, nil
	}
	view := make([]byte, 0, len(line))
	offs := make([]int, 0, len(line)+1)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' && i+5 < len(line) && line[i+1] == 'u' {
			if v, err := strconv.ParseUint(string(line[i+2:i+6]), 16, 16); err == nil && v < 0x80 {
				offs = append(offs, i)
				view = append(view, byte(v))
				i += 5
				continue
			}
		}
		if c == '\\' && i+1 < len(line) {
			if k := strings.IndexByte(`"'\/ntr`, line[i+1]); k >= 0 {
				offs = append(offs, i) // the escape stands at its backslash
				i++
				view = append(view, "\"'\\/\n\t\r"[k])
				continue
			}
		}
		view = append(view, c)
		offs = append(offs, i)
	}
	return view, append(offs, len(line))
}

// secretSpan is where the secret of a match is, as gitleaks' detector picks it: the
// secretGroup when set, else the first non-empty group, else the whole match.
func secretSpan(text []byte, loc []int, group int) (int, int) {
	if group > 0 && 2*group+1 < len(loc) {
		return loc[2*group], loc[2*group+1]
	}
	for g := 1; 2*g+1 < len(loc); g++ {
		if loc[2*g] >= 0 && loc[2*g+1] > loc[2*g] {
			return loc[2*g], loc[2*g+1]
		}
	}
	return trimBoundary(text, loc[0], loc[1])
}

// boundary is what a rule without groups matches around its secret, as a word boundary
// the regexp package cannot express ((?:[^a-z0-9]|\z)): a quote or bracket that closes
// the string the secret is in, and must stay.
const boundary = " \t\r\n\"'`,;:()[]{}<>\\"

func trimBoundary(text []byte, s, e int) (int, int) {
	for s < e && strings.IndexByte(boundary, text[s]) >= 0 {
		s++
	}
	for e > s && strings.IndexByte(boundary, text[e-1]) >= 0 {
		e--
	}
	return s, e
}

// allowed applies allowlists as gitleaks' detector does (checkFindingAllowed), on what
// evidence has: regexes (on the secret, the match or the line) and stop words. An AND
// allowlist that also needs a path or a commit cannot be met and allows nothing.
func allowed(lists []*config.Allowlist, secret, match, line string) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line
		}
		re := len(a.Regexes) > 0 && a.RegexAllowed(target)
		stop, _ := a.ContainsStopWord(secret)
		if a.MatchCondition == config.AllowlistMatchAnd {
			if len(a.Paths) > 0 || len(a.Commits) > 0 || len(a.Regexes) == 0 && len(a.StopWords) == 0 {
				continue
			}
			if (len(a.Regexes) == 0 || re) && (len(a.StopWords) == 0 || stop) {
				return true
			}
			continue
		}
		if re || stop {
			return true
		}
	}
	return false
}

// shannonEntropy is gitleaks' own measure (detect.shannonEntropy), so a rule's entropy
// threshold means here what it means there: rune frequencies over the byte length.
func shannonEntropy(data string) float64 {
	if data == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range data {
		counts[c]++
	}
	inv := 1.0 / float64(len(data))
	var h float64
	for _, n := range counts {
		f := float64(n) * inv
		h -= f * math.Log2(f)
	}
	return h
}
