package redact

import (
	"bytes"
	"encoding/base64"
	"io"
)

// RuleYAMLSecret names what yamlSecrets replaces: a value a line rule cannot see because
// its secret key is on another line.
const RuleYAMLSecret = "yaml-secret"

// yamlSecrets is a streaming filter over text that redacts what YAML holds under a
// secret key on an earlier line, which no line rule can see:
//
//   - every value of a Secret manifest's stringData;
//   - the values of data: all of them once the document says kind: Secret, and the
//     base64 ones before it does (kubectl prints data before kind; a ConfigMap's data is
//     text, a Secret's always base64);
//   - a block scalar under a secret-named key (password: |, then the lines of it);
//   - everything under a mapping or list a secret-named key opens (credentials:, then
//     key: x), and non-string values of such keys (password: 1234).
//
// Booleans stay under names that merely end like a secret
// (automountServiceAccountToken: false, in every pod manifest) and are replaced under
// the names themselves (password: true), as the JSON walker does (jsonvalue.go). A value
// becomes '***REDACTED***', quoted, or keeps its own quotes, so the file stays YAML.
type yamlSecrets struct {
	w      io.Writer
	counts map[string]int
	buf    []byte // a line not yet complete
	out    []byte
	kind   string // the document's kind so far
	under  int    // indent of the key whose content is secret; -1 none
	data   bool   // under is a data: mapping (values judged by kind and form)
	block  int    // indent of the key whose block scalar is being read; -1 none
	bsec   bool   // that block scalar is secret
}

func newYAMLSecrets(w io.Writer, counts map[string]int) *yamlSecrets {
	return &yamlSecrets{w: w, counts: counts, under: -1, block: -1}
}

// yamlTrigger reports whether a block of text holds what this filter looks for while no
// secret key is open: a key ending its line, a block scalar, a kind. A secret key with
// its value on its own line is the line rules' (password: 1234).
func yamlTrigger(b []byte) bool {
	for _, t := range [...]string{":\n", ":\r", ": |", ": >", "kind:"} {
		if bytes.Contains(b, []byte(t)) {
			return true
		}
	}
	return false
}

func (y *yamlSecrets) Write(p []byte) (int, error) {
	y.buf = append(y.buf, p...)
	end := bytes.LastIndexByte(y.buf, '\n') + 1
	if end == 0 {
		if len(y.buf) < maxLine {
			return len(p), nil
		}
		end = len(y.buf)
	}
	if err := y.lines(y.buf[:end]); err != nil {
		return 0, err
	}
	y.buf = append(y.buf[:0], y.buf[end:]...)
	return len(p), nil
}

// Close passes on the last line, which has no newline.
func (y *yamlSecrets) Close() error {
	if len(y.buf) == 0 {
		return nil
	}
	err := y.lines(y.buf)
	y.buf = y.buf[:0]
	return err
}

func (y *yamlSecrets) lines(b []byte) error {
	if y.under < 0 && y.block < 0 && !yamlTrigger(b) {
		_, err := y.w.Write(b)
		return err
	}
	y.out = y.out[:0]
	for off := 0; off < len(b); {
		next := len(b)
		if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		e := next
		for e > off && (b[e-1] == '\n' || b[e-1] == '\r') {
			e--
		}
		y.line(b[off:e])
		y.out = append(y.out, b[e:next]...)
		off = next
	}
	_, err := y.w.Write(y.out)
	return err
}

// line appends one line (without its end-of-line bytes), redacted, to y.out.
func (y *yamlSecrets) line(l []byte) {
	t := bytes.TrimLeft(l, " ")
	ind := len(l) - len(t)
	if len(bytes.TrimSpace(t)) == 0 || t[0] == '#' {
		y.out = append(y.out, l...)
		return
	}
	if y.block >= 0 {
		if ind > y.block {
			if y.bsec && !bytes.Equal(t, []byte(Replacement)) {
				y.out = append(append(y.out, l[:ind]...), Replacement...)
				y.counts[RuleYAMLSecret]++
				return
			}
			y.out = append(y.out, l...)
			return
		}
		y.block = -1
	}
	if ind == 0 && bytes.HasPrefix(t, []byte("---")) {
		y.kind, y.under = "", -1
	}
	k := splitYAML(l, ind)
	if y.under >= 0 && (ind > y.under || ind == y.under && k.item) {
		y.inside(l, k)
		return
	}
	y.under = -1
	if k.key == "" {
		y.out = append(y.out, l...)
		return
	}
	if k.key == "kind" {
		y.kind = string(bytes.Trim(l[k.vs:k.ve], `"'`))
	}
	y.opens(l, k)
}

// opens handles a key outside any secret content: it may open one, or be a secret itself.
func (y *yamlSecrets) opens(l []byte, k yamlKey) {
	empty := k.vs == k.ve
	switch {
	case k.key == "stringData" && empty, k.key == "data" && empty && (y.kind == "" || y.kind == "Secret"):
		y.under, y.data = k.ind, k.key == "data"
	case strongSecretName(k.key) && empty:
		y.under, y.data = k.ind, false
	case secretName(k.key) && blockIndicator(l[k.vs:k.ve]):
		y.block, y.bsec = k.ind, true
	case blockIndicator(l[k.vs:k.ve]):
		y.block, y.bsec = k.ind, false
	case secretName(k.key) && !empty && (!isBool(l[k.vs:k.ve]) || strongSecretName(k.key)) && !(countName(k.key) && numeric(l[k.vs:k.ve])):
		y.out = y.replaceValue(l, k)
		return
	}
	y.out = append(y.out, l...)
}

// inside handles a line within a secret key's content.
func (y *yamlSecrets) inside(l []byte, k yamlKey) {
	v := l[k.vs:k.ve]
	switch {
	case blockIndicator(v):
		y.block, y.bsec = k.ind, !y.data || y.kind == "Secret"
	case k.vs == k.ve:
	case y.data && y.kind != "Secret" && !looksBase64(bytes.Trim(v, `"'`)):
	default:
		y.out = y.replaceValue(l, k)
		return
	}
	y.out = append(y.out, l...)
}

// replaceValue appends l with its value replaced, keeping the value's own quotes.
func (y *yamlSecrets) replaceValue(l []byte, k yamlKey) []byte {
	v := l[k.vs:k.ve]
	if bytes.Contains(v, []byte(Replacement)) || bytes.Equal(v, []byte("null")) || bytes.Equal(v, []byte("~")) {
		return append(y.out, l...)
	}
	y.counts[RuleYAMLSecret]++
	out := append(y.out, l[:k.vs]...)
	if n := len(v); n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n-1] == v[0] {
		out = append(append(append(out, v[0]), Replacement...), v[0])
	} else {
		out = append(append(append(out, '\''), Replacement...), '\'')
	}
	return append(out, l[k.ve:]...)
}

// yamlKey is what splitYAML found on a line: a key and where its value is, or a list
// item's value.
type yamlKey struct {
	key    string
	ind    int  // the key's (or item's) column
	item   bool // the line is a list item ("- ")
	vs, ve int  // the value, comment and blanks around it excluded
}

// splitYAML reads "key: value", "- key: value" or "- value" from a line whose text
// starts at column ind. A line that is none of these (a log line, prose) has no key and
// no value.
func splitYAML(l []byte, ind int) yamlKey {
	k := yamlKey{ind: ind}
	p := ind
	for p+1 < len(l) && l[p] == '-' && l[p+1] == ' ' {
		k.item = true
		p += 2
		for p < len(l) && l[p] == ' ' {
			p++
		}
		k.ind = p
	}
	ks := p
	q := byte(0)
	if p < len(l) && (l[p] == '"' || l[p] == '\'') {
		q = l[p]
		p++
		ks = p
	}
	for p < len(l) && yamlKeyByte(l[p]) {
		p++
	}
	ke := p
	if q != 0 && p < len(l) && l[p] == q {
		p++
	}
	if ke > ks && p < len(l) && l[p] == ':' && (p+1 == len(l) || l[p+1] == ' ') {
		k.key = string(l[ks:ke])
		p++
	} else if k.item {
		p = k.ind // a bare list item: all of it is the value
	} else {
		return yamlKey{ind: ind, vs: len(l), ve: len(l)}
	}
	for p < len(l) && l[p] == ' ' {
		p++
	}
	k.vs, k.ve = p, valueEnd(l, p)
	return k
}

func yamlKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/'
}

// valueEnd is where a value starting at p ends: before a comment (" #") outside quotes,
// and trailing blanks.
func valueEnd(l []byte, p int) int {
	e := len(l)
	if p < len(l) && (l[p] == '"' || l[p] == '\'') {
		if j := bytes.LastIndexByte(l[p+1:], l[p]); j >= 0 {
			e = p + 1 + j + 1
		}
	} else if j := bytes.Index(l[p:], []byte(" #")); j >= 0 {
		e = p + j
	}
	for e > p && (l[e-1] == ' ' || l[e-1] == '\t') {
		e--
	}
	return e
}

// blockIndicator reports whether v starts a block scalar: |, >, with their modifiers.
func blockIndicator(v []byte) bool {
	if len(v) == 0 || (v[0] != '|' && v[0] != '>') {
		return false
	}
	for _, c := range v[1:] {
		if c != '-' && c != '+' && (c < '1' || c > '9') {
			return false
		}
	}
	return true
}

func isBool(v []byte) bool {
	switch string(bytes.ToLower(bytes.Trim(v, `"'`))) {
	case "true", "false", "yes", "no", "on", "off":
		return true
	}
	return false
}

// looksBase64 reports whether a data: value is base64, as every value of a Secret's data
// is: it decodes, and is long enough or padded not to be a short word.
func looksBase64(v []byte) bool {
	if len(v) < 4 || len(v)%4 != 0 || len(v) < 8 && !bytes.HasSuffix(v, []byte("=")) {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(string(v))
	return err == nil
}

// numeric says whether a plain YAML value is a number (a count under "pass").
func numeric(v []byte) bool {
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	if len(v) == 0 {
		return false
	}
	for _, c := range v {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}
