package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// Names of the structural JSON rules.
const (
	RuleSecretData = "k8s-secret-data" // values of Secret data/stringData, and its last-applied copy
	RuleSecretKey  = "secret-key"      // the value of a key named like a secret: "password", "token", "auth"
	RuleEnvSecret  = "env-secret"      // {name: DB_PASSWORD, value: X}: an env entry with a secret-like name
	RuleFlagArg    = "flag-argument"   // ["--password", "X"]: the argument after a secret flag
)

// maxJSONValue is the largest JSON file redacted by value; it is held in memory whole.
// A larger one is redacted as text (its layout may then break where a secret was).
const maxJSONValue = 256 << 20

// copyJSON redacts a JSON stream by value.
func (r *Redactor) copyJSON(dst io.Writer, src io.Reader, counts map[string]int) (int64, error) {
	b, err := io.ReadAll(io.LimitReader(src, maxJSONValue+1))
	if err != nil {
		return 0, err
	}
	if len(b) > maxJSONValue {
		return r.copyText(dst, io.MultiReader(bytes.NewReader(b), src), counts)
	}
	out := r.redactJSON(b, counts)
	n, err := dst.Write(out)
	return int64(n), err
}

// redactJSON returns b with its secrets replaced; b itself when there were none. Text
// that does not decode as JSON (a PowerShell error in a .json file) is redacted as text.
func (r *Redactor) redactJSON(b []byte, counts map[string]int) []byte {
	if u, ok := fromUTF16(b); ok {
		red := r.redactJSON(u, counts)
		if bytes.Equal(red, u) {
			return b
		}
		return toUTF16(red, b)
	}
	bom := 0
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		bom = 3
	}
	local := map[string]int{}
	edits, err := r.jsonEdits(b[bom:], local)
	if err != nil {
		var buf bytes.Buffer
		local = map[string]int{}
		r.copyText(&buf, bytes.NewReader(b), local) // to memory: no error
		merge(counts, local)
		return buf.Bytes()
	}
	merge(counts, local)
	if len(edits) == 0 {
		return b
	}
	slices.SortFunc(edits, func(x, y edit) int { return x.start - y.start })
	out := make([]byte, 0, len(b)+len(edits)*len(Replacement))
	out = append(out, b[:bom]...)
	prev := 0
	body := b[bom:]
	for _, e := range edits {
		out = append(out, body[prev:e.start]...)
		out = append(out, e.text...)
		prev = e.end
	}
	return append(out, body[prev:]...)
}

func merge(dst, src map[string]int) {
	for k, n := range src {
		dst[k] += n
	}
}

// edit replaces the string literal at b[start:end] (quotes included) with text.
type edit struct {
	start, end int
	text       []byte
}

// pending is a string whose fate waits on a later sibling (an env entry's name, a
// Secret's kind): replaced whole under rule, or else redacted as text.
type pending struct {
	start, end int
	value      string
	rule       string
}

type vframe struct {
	obj, expectKey bool
	key            string
	kind           string
	kindSeen       bool
	hasType        bool
	nameSecret     int8 // env entry: 1 its name is secret-like, -1 it is not, 0 not seen
	pendValue      []pending
	pendData       []pending
	prevFlag       bool // array: the previous element was a secret flag (--password)
}

// jsonWalk is one pass over a JSON document.
type jsonWalk struct {
	r      *Redactor
	b      []byte
	counts map[string]int
	text   *textPass
	stack  []vframe
	edits  []edit
}

// jsonEdits walks the tokens of b and returns the string literals to replace.
func (r *Redactor) jsonEdits(b []byte, counts map[string]int) ([]edit, error) {
	w := &jsonWalk{r: r, b: b, counts: counts, text: r.newTextPass(counts)}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	for {
		from := int(dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			return w.edits, nil
		}
		if err != nil {
			return nil, err
		}
		to := int(dec.InputOffset())
		switch t := tok.(type) {
		case json.Delim:
			w.delim(t)
		case string:
			start := from + bytes.IndexByte(b[from:to], '"')
			w.str(t, start, to)
		default:
			w.scalar()
		}
	}
}

func (w *jsonWalk) top() *vframe {
	if len(w.stack) == 0 {
		return nil
	}
	return &w.stack[len(w.stack)-1]
}

// valueDone marks the end of a member value in an object.
func (w *jsonWalk) valueDone() {
	if f := w.top(); f != nil && f.obj {
		f.expectKey = true
	}
}

func (w *jsonWalk) delim(d json.Delim) {
	switch d {
	case '{', '[':
		if f := w.top(); f != nil && !f.obj {
			f.prevFlag = false
		}
		w.stack = append(w.stack, vframe{obj: d == '{', expectKey: d == '{'})
	case '}', ']':
		f := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if f.obj {
			for _, p := range f.pendValue {
				w.plain(p.value, p.start, p.end)
			}
			secret := !f.kindSeen && f.hasType // a typed List item: Secrets have a type
			for _, p := range f.pendData {
				w.resolve(p, secret)
			}
		}
		w.valueDone()
	}
}

func (w *jsonWalk) scalar() {
	if f := w.top(); f != nil && !f.obj {
		f.prevFlag = false
	}
	w.valueDone()
}

func (w *jsonWalk) str(s string, start, end int) {
	f := w.top()
	if f != nil && f.obj && f.expectKey {
		f.key, f.expectKey = s, false
		if len(w.text.lits) > 0 {
			if red := replaceLiterals([]byte(s), w.text.lits, w.counts); string(red) != s {
				w.replace(start, end, string(red))
			}
		}
		return
	}
	defer w.valueDone()
	switch {
	case f == nil:
		w.plain(s, start, end)
	case !f.obj:
		if f.prevFlag {
			w.whole(s, start, end, RuleFlagArg)
		} else {
			w.plain(s, start, end)
		}
		f.prevFlag = secretFlag(s)
	case w.secretOwner() >= 0:
		owner := &w.stack[w.secretOwner()]
		p := pending{start: start, end: end, value: s, rule: RuleSecretData}
		if owner.kindSeen {
			w.resolve(p, owner.kind == "Secret")
		} else {
			owner.pendData = append(owner.pendData, p)
		}
	case secretName(f.key):
		w.whole(s, start, end, RuleSecretKey)
	case f.key == "value" && f.nameSecret == 0:
		f.pendValue = append(f.pendValue, pending{start: start, end: end, value: s, rule: RuleEnvSecret})
	case f.key == "value" && f.nameSecret > 0:
		w.whole(s, start, end, RuleEnvSecret)
	default:
		w.plain(s, start, end)
		w.sibling(f, s)
	}
}

// sibling notes what a member says about its object: its kind, its type, an env name.
func (w *jsonWalk) sibling(f *vframe, s string) {
	switch f.key {
	case "kind":
		f.kind, f.kindSeen = s, true
		for _, p := range f.pendData {
			w.resolve(p, s == "Secret")
		}
		f.pendData = nil
	case "type":
		f.hasType = true
	case "name":
		f.nameSecret = -1
		if secretName(s) {
			f.nameSecret = 1
			for _, p := range f.pendValue {
				w.whole(p.value, p.start, p.end, p.rule)
			}
		} else {
			for _, p := range f.pendValue {
				w.plain(p.value, p.start, p.end)
			}
		}
		f.pendValue = nil
	}
}

// secretOwner returns the stack index of the object whose Secret-ness decides whether
// the string value about to be read is secret, or -1: the value sits in
// <owner>.data.<key>, <owner>.stringData.<key> or
// <owner>.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"].
func (w *jsonWalk) secretOwner() int {
	st, n := w.stack, len(w.stack)
	if n >= 2 && st[n-1].obj && st[n-2].obj && (st[n-2].key == "data" || st[n-2].key == "stringData") {
		return n - 2
	}
	if n >= 3 && st[n-1].key == "kubectl.kubernetes.io/last-applied-configuration" &&
		st[n-2].key == "annotations" && st[n-3].key == "metadata" {
		return n - 3
	}
	return -1
}

func (w *jsonWalk) resolve(p pending, secret bool) {
	if secret {
		w.whole(p.value, p.start, p.end, p.rule)
	} else {
		w.plain(p.value, p.start, p.end)
	}
}

// whole replaces a value entirely; empty and already redacted values stay.
func (w *jsonWalk) whole(s string, start, end int, rule string) {
	if s == "" || s == Replacement {
		return
	}
	w.counts[rule]++
	w.replace(start, end, Replacement)
}

// plain redacts a value by the text rules.
func (w *jsonWalk) plain(s string, start, end int) {
	if red := w.text.run(s); red != s {
		w.replace(start, end, red)
	}
}

func (w *jsonWalk) replace(start, end int, s string) {
	enc, _ := json.Marshal(s) // a string always encodes
	w.edits = append(w.edits, edit{start: start, end: end, text: enc})
}

// secretName reports whether a key or an env variable name is one whose value is a
// secret: password, DB_PASSWORD, client-key-data, api_key, identitytoken, auth.
func secretName(k string) bool {
	n := normName(k)
	switch n {
	case "pwd", "pass", "auth", "credential", "credentials", "connectionstring", "accountkey", "sharedaccesskey":
		return true
	}
	for _, suf := range []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "secretkey",
		"privatekey", "accesskey", "keydata"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

// secretFlag reports whether an argument is a flag whose value is the next argument:
// --password, -Password, --token, /password.
func secretFlag(s string) bool {
	t := strings.TrimLeft(s, "-/")
	if len(t) == len(s) || len(s)-len(t) > 2 || strings.ContainsAny(t, "=: ") {
		return false
	}
	return secretName(t)
}

// normName lower-cases a name and drops the separators people put in it.
func normName(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c == '-' || c == '_' || c == '.' || c == ' ':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
