package redact

import "bytes"

// pemBase64 is "-----BEGIN" in base64, as a base64-encoded PEM block starts.
const pemBase64 = "LS0tLS1CRUdJTi"

// prefixedPEM handles a line inside a PEM private key block whose lines carry a prefix
// (a klog header, a CRI log's "stdout F", a timestamp): the key material after the
// prefix is replaced and the prefix kept, line by line, so the log keeps its lines. It
// reports false when the block is over (its END line, or a line that is no key), and
// the line is then the caller's.
func (f *lineFilter) prefixedPEM(line, eol []byte) bool {
	if bytes.Contains(line, []byte(pemEnd)) {
		f.inPEM = false
		return false
	}
	at := bodyAt(line, f.pemCol, pemBody)
	if at < 0 || !samePrefixShape(f.shape, line[:at]) {
		f.inPEM = false
		return false
	}
	f.out = f.replaceTail(line, eol, at, &f.pemMarked, RulePrivateKey)
	return true
}

// startBase64 notes a line on which a base64-encoded PEM private key starts and runs on
// to the line's end: the lines after it that go on with base64 are the same key
// (base64 -w 76, a YAML block scalar, a log of it).
func (f *lineFilter) startBase64(line []byte) {
	i := bytes.Index(line, []byte(pemBase64))
	if i < 0 {
		return
	}
	t := bytes.TrimRight(line, " \t")
	j := i
	for j < len(t) && base64Byte(t[j]) {
		j++
	}
	tok := t[i:j]
	if j != len(t) || bytes.HasSuffix(tok, []byte("=")) {
		return // the key ends on this line
	}
	for _, k := range [...]string{"UFJJVkFURSBLRVk", "BSSVZBVEUgS0VZ", "QUklWQVRFIEtFW"} {
		if bytes.Contains(tok, []byte(k)) {
			f.b64, f.b64Col, f.b64Width = true, i, 0
			f.shape = appendShape(f.shape[:0], line[:i])
			return
		}
	}
}

// wrappedBase64 handles a line after the start of a wrapped base64 PEM key: base64 at
// the key's column (or after the line's prefix) is more of it and is replaced. A line
// shorter than the first continued one, or padded, is its last.
func (f *lineFilter) wrappedBase64(line, eol []byte) bool {
	at := bodyAt(line, f.b64Col, func(b []byte) bool {
		t := bytes.TrimRight(b, " \t")
		for _, c := range t {
			if !base64Byte(c) {
				return false
			}
		}
		return len(t) > 0
	})
	if at < 0 || !samePrefixShape(f.shape, line[:at]) {
		f.b64 = false
		return false
	}
	tok := bytes.TrimRight(line[at:], " \t")
	if f.b64Width == 0 {
		f.b64Width = len(tok)
	}
	if bytes.HasSuffix(tok, []byte("=")) || len(tok) < f.b64Width {
		f.b64 = false
	}
	marked := false
	f.out = f.replaceTail(line, eol, at, &marked, "private-key-base64")
	return true
}

// bodyAt is where the body of a line of a multi-line key starts: after the line's last
// blank or ']' (key material has none), when body says what is there is key material;
// else at col, where the first line had its marker (a header line, "Proc-Type: 4,...",
// after a prefix of the same width); -1 when neither is.
func bodyAt(line []byte, col int, body func([]byte) bool) int {
	i := bytes.LastIndexAny(bytes.TrimRight(line, " \t"), " \t]") + 1
	if i < len(line) && body(line[i:]) {
		return i
	}
	if col < len(line) && len(bytes.TrimSpace(line[col:])) > 0 && body(line[col:]) {
		return col
	}
	return -1
}

// replaceTail appends line with what is from at on replaced, counting rule once per
// block (marked).
func (f *lineFilter) replaceTail(line, eol []byte, at int, marked *bool, rule string) []byte {
	if !bytes.Equal(bytes.TrimSpace(line[at:]), []byte(Replacement)) && !*marked {
		*marked = true
		f.counts[rule]++
	}
	return append(append(append(f.out, line[:at]...), Replacement...), eol...)
}

func base64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// shapeLen is how much of a line's prefix samePrefixShape compares: a klog header's level,
// date and time, a CRI log's timestamp.
const shapeLen = 16

// appendShape appends the shape of prefix: its first bytes, digits all alike, so the
// prefixes of one log's lines (timestamps, pids) have one shape.
func appendShape(dst, prefix []byte) []byte {
	for _, c := range prefix[:min(len(prefix), shapeLen)] {
		if c >= '0' && c <= '9' {
			c = '0'
		}
		dst = append(dst, c)
	}
	return dst
}

// samePrefixShape reports whether prefix starts as the first line's did (shape), as far as
// both go: the lines are of one log, and a line of another kind ends the key.
func samePrefixShape(shape, prefix []byte) bool {
	for i := 0; i < len(shape) && i < len(prefix); i++ {
		c := prefix[i]
		if c >= '0' && c <= '9' {
			c = '0'
		}
		if c != shape[i] {
			return false
		}
	}
	return true
}
