package redact

import (
	"bytes"
	"io"
	"slices"
)

// maxLine bounds the memory one line may take: a longer line (compact JSON, a binary
// blob) is redacted in pieces of this size, so a match straddling a cut is missed.
const maxLine = 1 << 20

// lineFilter applies the regex rules and PEM block redaction to whole lines. It works
// on blocks of complete lines: a block in which no rule's keyword occurs (almost every
// block of a log) is passed on untouched, in one Write.
type lineFilter struct {
	rules  []compiledRule
	scans  []scan
	w      io.Writer
	counts map[string]int
	buf    []byte // input not yet processed: a partial line
	low    []byte // the block, lower-cased
	out    []byte // the block, redacted
	s1, s2 []byte // scratch for chaining rules on one line
	cands  []cand
	// anyLine: a custom rule has no keywords, so every line must be asked.
	anyLine bool
	// inPEM: inside a PEM private key block; pemMarked: its marker line is out.
	inPEM, pemMarked bool
	// pemCol: where the block's BEGIN marker is; pemPrefixed: something not blank
	// (a log line's prefix) is before it, on every line of the block.
	pemCol      int
	pemPrefixed bool
	// b64: inside a base64-encoded PEM key wrapped over lines; b64Col: where it is on
	// its lines, b64Width: how long its first continued line is.
	b64              bool
	b64Col, b64Width int
	// shape: the shape of the prefix before the key on its first line (appendShape).
	shape []byte
	// lits: the forms of the literal secrets, replaced before any rule runs.
	lits [][]byte
	// leaks: gitleaks' rules, after the built-in ones; hits: the lines they run on.
	leaks *leaks
	hits  []hit
	blk   []byte // the block being redacted, which hits index
	// tail is the last line of the block before when a keyword is on it; ctxb and
	// ctxl are it and this block joined, and lower-cased.
	tail, ctxb, ctxl []byte
}

// newLineFilter is a line filter with r's rules and literal secrets, writing to w.
func (r *Redactor) newLineFilter(w io.Writer, counts map[string]int) *lineFilter {
	return &lineFilter{rules: r.rules, scans: r.scans, w: w, counts: counts, anyLine: r.anyLine, lits: r.literalForms(), leaks: r.leaks}
}

func (f *lineFilter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	end := heldEnd(f.buf)
	if end == 0 {
		if len(f.buf) < maxLine {
			return len(p), nil
		}
		end = len(f.buf)
	}
	if err := f.block(f.buf[:end]); err != nil {
		return 0, err
	}
	f.buf = append(f.buf[:0], f.buf[end:]...)
	return len(p), nil
}

// heldEnd is where the complete lines of buf end, less a command still being continued
// (its last lines end in \, ` or ^): the lines of one command stay in one block, where
// a rule can see its name and its value together.
func heldEnd(buf []byte) int {
	end := bytes.LastIndexByte(buf, '\n') + 1
	held := end
	for held > 0 && len(buf)-held < maxLine {
		line := bytes.TrimRight(buf[:held], " \t\r\n")
		if len(line) == 0 || !bytes.ContainsRune([]byte("\\`^"), rune(line[len(line)-1])) {
			return held
		}
		held = bytes.LastIndexByte(line, '\n') + 1
	}
	if len(buf)-held >= maxLine {
		return end // a continued command longer than a line may be: cut it
	}
	return held
}

// Close redacts the last line, which has no newline.
func (f *lineFilter) Close() error {
	if len(f.buf) == 0 {
		return nil
	}
	err := f.block(f.buf)
	f.buf = f.buf[:0]
	return err
}

// PEM markers; "PRIVATE KEY" ends the BEGIN line of every private key type (then
// "-----", or " BLOCK-----" for an OpenPGP armored key).
// pemProbe is pemKey from its rare 'V' on: one block scan finds it fast.
const pemBegin, pemEnd, pemKey, pemProbe = "-----BEGIN ", "-----END", "PRIVATE KEY", "VATE KEY"

// scan is one finder and the rules (a bit each) it finds lines for.
type scan struct {
	find func(b, low []byte) int
	mask uint64
	pem  bool // looks for pemKey, which block checks first
}

// cand is a line a finder pointed at, with the rules to run on it: built-in ones (mask)
// and gitleaks' (f.hits[h0:h1]).
type cand struct {
	start, end int
	mask       uint64
	h0, h1     int
}

// block redacts a run of whole lines. The finders point at the lines a rule may match
// and only those go through the regexes; the rest is copied as it is. A block that may
// hold a PEM key, or any block when a custom rule has no keywords, goes line by line.
func (f *lineFilter) block(b []byte) error {
	b = replaceLiterals(b, f.lits, f.counts)
	f.blk = b
	f.low = lowerASCII(f.low, b)
	if f.inPEM || f.b64 || bytes.Contains(b, []byte(pemProbe)) || bytes.Contains(b, []byte(pemBase64)) || f.anyLine {
		return f.eachLine(b)
	}
	f.cands = f.cands[:0]
	for _, sc := range f.scans {
		if sc.pem {
			continue // the block holds no PEM key: checked above
		}
		for from := 0; from < len(b); {
			j := sc.find(b[from:], f.low[from:])
			if j < 0 {
				break
			}
			at := from + j
			c := cand{start: bytes.LastIndexByte(b[:at], '\n') + 1, end: len(b), mask: sc.mask}
			if k := bytes.IndexByte(b[at:], '\n'); k >= 0 {
				c.end = at + k + 1
			}
			f.cands = append(f.cands, c)
			from = c.end
		}
	}
	f.leakCands(b)
	if len(f.cands) == 0 {
		_, err := f.w.Write(b)
		return err
	}
	slices.SortFunc(f.cands, func(a, b cand) int { return a.start - b.start })
	f.out = f.out[:0]
	prev := 0
	for k := 0; k < len(f.cands); {
		c := f.cands[k]
		for k++; k < len(f.cands) && f.cands[k].start == c.start; k++ {
			c.mask |= f.cands[k].mask
			if f.cands[k].h1 > f.cands[k].h0 {
				c.h0, c.h1 = f.cands[k].h0, f.cands[k].h1
			}
		}
		f.out = append(f.out, b[prev:c.start]...)
		f.split(b, c.start, c.end, c.mask, f.hits[c.h0:c.h1])
		prev = c.end
	}
	f.out = append(f.out, b[prev:]...)
	_, err := f.w.Write(f.out)
	return err
}

// eachLine redacts a block line by line, asking every rule about every line.
func (f *lineFilter) eachLine(b []byte) error {
	f.out = f.out[:0]
	f.tail = f.tail[:0]
	for off := 0; off < len(b); {
		next := len(b)
		if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		var mask uint64
		for i := range f.rules {
			if f.rules[i].mayMatch(b[off:next], f.low[off:next]) {
				mask |= 1 << i
			}
		}
		f.hits = f.hits[:0]
		if f.leaks != nil {
			f.hits = f.leaks.hits(f.hits, b[off:next], f.low[off:next])
		}
		f.split(b, off, next, mask, f.hits)
		off = next
	}
	_, err := f.w.Write(f.out)
	return err
}

// split hands b[start:end], one line, to line without its end-of-line bytes.
func (f *lineFilter) split(b []byte, start, end int, mask uint64, hits []hit) {
	e := end
	for e > start && (b[e-1] == '\n' || b[e-1] == '\r') {
		e--
	}
	f.line(b[start:e], b[e:end], mask, hits)
}

// leakCands adds the lines of block b that gitleaks' keywords point at to f.cands, one
// candidate per line with its run of f.hits.
func (f *lineFilter) leakCands(b []byte) {
	f.hits = f.hits[:0]
	if f.leaks == nil {
		return
	}
	// The last line of the block before, when a keyword is on it, is carried into
	// this one: a block ends at any newline (a Write, a string value's end), and the
	// value of that keyword may be on the line after it.
	ctx, low, tail := b, f.low, len(f.tail)
	if tail > 0 {
		f.ctxb = append(append(f.ctxb[:0], f.tail...), b...)
		f.ctxl = lowerASCII(f.ctxl, f.ctxb)
		ctx, low = f.ctxb, f.ctxl
	}
	f.blk = ctx
	all := f.leaks.hits(f.hits, ctx, low)
	f.hits = f.hits[:0]
	last := bytes.LastIndexByte(bytes.TrimRight(ctx, "\r\n"), '\n') + 1
	f.tail = f.tail[:0]
	for _, h := range all {
		if h.start >= tail {
			f.hits = append(f.hits, h)
		}
		if h.start == last && h.ctx < 0 && last >= tail && len(f.tail) == 0 {
			f.tail = append(f.tail, ctx[last:]...)
		}
	}
	for i := 0; i < len(f.hits); {
		j := i + 1
		for j < len(f.hits) && f.hits[j].start == f.hits[i].start {
			j++
		}
		f.cands = append(f.cands, cand{start: f.hits[i].start - tail, end: f.hits[i].end - tail, h0: i, h1: j})
		i = j
	}
}

// line redacts one line (without its end-of-line bytes eol) into f.out, applying the
// built-in rules in mask, then gitleaks' rules of hits.
func (f *lineFilter) line(line, eol []byte, mask uint64, hits []hit) {
	if f.inPEM && f.pemPrefixed {
		if f.prefixedPEM(line, eol) {
			return
		}
	} else if f.b64 && f.wrappedBase64(line, eol) {
		return
	}
	if f.inPEM && !f.pemPrefixed {
		switch {
		case bytes.Contains(line, []byte(pemEnd)):
			f.inPEM = false
		case len(bytes.TrimSpace(line)) == 0:
			f.out = append(append(f.out, line...), eol...)
			return
		case string(bytes.TrimSpace(line)) == Replacement:
			f.pemMarked = true // redacted already (a bundle redacted again)
			f.out = append(append(f.out, line...), eol...)
			return
		case pemBody(line):
			// Key material is dropped; one marker line, indented like the key so YAML
			// stays valid, stands for the whole block.
			if !f.pemMarked {
				f.pemMarked = true
				f.counts[RulePrivateKey]++
				indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
				f.out = append(append(append(f.out, indent...), Replacement...), eol...)
			}
			return
		default:
			f.inPEM = false // not a key after all; never swallow the rest of a log
		}
	}
	cur := line
	for i := range f.rules {
		rule := &f.rules[i]
		if mask&(1<<i) == 0 {
			continue
		}
		scratch := &f.s1
		if len(cur) > 0 && len(f.s1) > 0 && &cur[0] == &f.s1[0] {
			scratch = &f.s2
		}
		res, n := rule.apply((*scratch)[:0], cur)
		*scratch = res
		if n > 0 {
			f.counts[rule.name] += n
			cur = res
		}
	}
	if len(hits) > 0 {
		scratch := &f.s1
		if len(cur) > 0 && len(f.s1) > 0 && &cur[0] == &f.s1[0] {
			scratch = &f.s2
		}
		*scratch = f.leaks.redactLine((*scratch)[:0], cur, f.blk, hits, f.counts)
		cur = *scratch
	}
	f.out = append(append(f.out, cur...), eol...)
	if k := bytes.Index(cur, []byte(pemKey)); k >= 0 && bytes.Contains(cur[:k], []byte(pemBegin)) && !bytes.Contains(cur[k:], []byte(pemEnd)) {
		f.inPEM, f.pemMarked = true, false
		f.pemCol = max(0, bytes.Index(line, []byte(pemBegin)))
		f.pemPrefixed = len(bytes.TrimSpace(line[:f.pemCol])) > 0
		f.shape = appendShape(f.shape[:0], line[:f.pemCol])
	}
	f.startBase64(line)
}

// pemBody reports whether a non-blank line can be inside a PEM block: base64 or a
// header, maybe indented (as YAML block scalars hold it).
func pemBody(line []byte) bool {
	t := bytes.TrimSpace(line)
	if bytes.HasPrefix(t, []byte("Proc-Type:")) || bytes.HasPrefix(t, []byte("DEK-Info:")) || bytes.HasPrefix(t, []byte("Version:")) || bytes.HasPrefix(t, []byte("Comment:")) {
		return true
	}
	for _, c := range t {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// lowerASCII lower-cases ASCII letters only, so offsets in dst match those in src.
func lowerASCII(dst, src []byte) []byte {
	dst = slices.Grow(dst[:0], len(src))[:len(src)]
	for i, c := range src {
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}
