package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
)

var errNotJSON = errors.New("not JSON")

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
	if u, form, ok := fromUTF16(b); ok {
		red := r.redactJSON(u, counts)
		if bytes.Equal(red, u) {
			return b
		}
		return toUTF16(red, form)
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
		r.copyTextSized(&buf, bytes.NewReader(b), local, bufferFor(len(b))) // to memory: no error
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
	netUser        int8 // array: 1 after "net", 2 after "user", 3 after the account name
	secret         bool // the object or array is the value of a secret's name: all its values go
}

// jsonWalk is one pass over a JSON document.
type jsonWalk struct {
	r      *Redactor
	b      []byte
	counts map[string]int
	text   *textPass
	stack  []vframe
	edits  []edit
	keys   map[string]keyInfo // every distinct key once: its string and whether it names a secret
	unesc  []byte
}

type keyInfo struct {
	key    string
	secret bool
}

// jsonEdits walks b, valid JSON (or JSON lines), and returns the string literals to
// replace.
func (r *Redactor) jsonEdits(b []byte, counts map[string]int) ([]edit, error) {
	if !validJSON(b) {
		return nil, errNotJSON
	}
	w := &jsonWalk{r: r, b: b, counts: counts, text: r.newTextPass(counts), keys: map[string]keyInfo{}}
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '{', '[', '}', ']':
			w.delim(c)
			i++
		case '"':
			end, esc := stringEnd(b, i)
			raw := b[i+1 : end-1]
			if esc {
				w.unesc = unescape(w.unesc[:0], raw)
				raw = w.unesc
			}
			w.str(raw, i, end)
			i = end
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
		default: // a number, true, false or null
			start := i
			for i < len(b) && !delimiter(b[i]) {
				i++
			}
			w.scalar(start, i)
		}
	}
	return w.edits, nil
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

func (w *jsonWalk) delim(d byte) {
	switch d {
	case '{', '[':
		secret := false
		if f := w.top(); f != nil {
			if !f.obj {
				f.prevFlag = false
			}
			secret = f.secret || f.obj && strongSecretName(f.key)
		}
		w.stack = append(w.stack, vframe{obj: d == '{', expectKey: d == '{', secret: secret})
	case '}', ']':
		f := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if f.obj {
			for _, p := range f.pendValue {
				w.plain([]byte(p.value), p.start, p.end)
			}
			secret := !f.kindSeen && f.hasType // a typed List item: Secrets have a type
			for _, p := range f.pendData {
				w.resolve(p, secret)
			}
		}
		w.valueDone()
	}
}

// scalar handles a number, true, false or null at b[start:end]. A secret's value need not
// be a string (a PIN, "password": 1234): under a secret's name a number is replaced by
// the string "***REDACTED***", and so is a boolean under the name itself ("password":
// true), not under one that merely ends like it ("automountServiceAccountToken":
// false, in every pod). null stays: it holds nothing.
func (w *jsonWalk) scalar(start, end int) {
	f := w.top()
	if f != nil && !f.obj {
		f.prevFlag = false
	}
	if f != nil && (f.obj || f.secret) {
		v := w.b[start:end]
		num := len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
		strong := f.secret || strongSecretName(f.key)
		if string(v) != "null" && (strong || num && w.key([]byte(f.key)).secret && !countName(f.key)) {
			w.counts[RuleSecretKey]++
			w.replace(start, end, []byte(Replacement))
		}
	}
	w.valueDone()
}

// key interns an object key: documents repeat the same few keys many times.
func (w *jsonWalk) key(raw []byte) keyInfo {
	if k, ok := w.keys[string(raw)]; ok {
		return k
	}
	k := keyInfo{key: string(raw), secret: secretName(string(raw))}
	w.keys[k.key] = k
	return k
}

// str handles a string, raw its decoded bytes, at b[start:end] (quotes included).
func (w *jsonWalk) str(raw []byte, start, end int) {
	f := w.top()
	if f != nil && f.obj && f.expectKey {
		f.key, f.expectKey = w.key(raw).key, false
		if len(w.text.lits) > 0 {
			if red := replaceLiterals(raw, w.text.lits, w.counts); !bytes.Equal(red, raw) {
				w.replace(start, end, red)
			}
		}
		return
	}
	defer w.valueDone()
	switch {
	case f == nil:
		w.plain(raw, start, end)
	case f.secret:
		w.whole(raw, start, end, RuleSecretKey)
	case !f.obj:
		if f.prevFlag || f.netUser == 3 && len(raw) > 0 && raw[0] != '/' {
			w.whole(raw, start, end, RuleFlagArg)
		} else {
			w.plain(raw, start, end)
		}
		f.prevFlag = len(raw) > 1 && (raw[0] == '-' || raw[0] == '/') && secretFlag(string(raw))
		f.netUser = netUserStep(f.netUser, raw)
	case w.secretOwner() >= 0:
		owner := &w.stack[w.secretOwner()]
		p := pending{start: start, end: end, value: string(raw), rule: RuleSecretData}
		if owner.kindSeen {
			w.resolve(p, owner.kind == "Secret")
		} else {
			owner.pendData = append(owner.pendData, p)
		}
	case w.keys[f.key].secret:
		w.whole(raw, start, end, RuleSecretKey)
	case f.key == "value" && f.nameSecret == 0:
		f.pendValue = append(f.pendValue, pending{start: start, end: end, value: string(raw), rule: RuleEnvSecret})
	case f.key == "value" && f.nameSecret > 0:
		w.whole(raw, start, end, RuleEnvSecret)
	default:
		w.plain(raw, start, end)
		w.sibling(f, raw)
	}
}

// sibling notes what a member says about its object: its kind, its type, an env name.
func (w *jsonWalk) sibling(f *vframe, raw []byte) {
	switch f.key {
	case "kind":
		f.kind, f.kindSeen = string(raw), true
		for _, p := range f.pendData {
			w.resolve(p, f.kind == "Secret")
		}
		f.pendData = nil
	case "type":
		f.hasType = true
	case "name":
		f.nameSecret = -1
		if secretName(string(raw)) {
			f.nameSecret = 1
		}
		for _, p := range f.pendValue {
			w.resolve(p, f.nameSecret > 0)
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
		w.whole([]byte(p.value), p.start, p.end, p.rule)
	} else {
		w.plain([]byte(p.value), p.start, p.end)
	}
}

// whole replaces a value entirely; empty and already redacted values stay.
func (w *jsonWalk) whole(raw []byte, start, end int, rule string) {
	if len(raw) == 0 || string(raw) == Replacement {
		return
	}
	w.counts[rule]++
	w.replace(start, end, []byte(Replacement))
}

// plain redacts a value by the text rules.
func (w *jsonWalk) plain(raw []byte, start, end int) {
	if red, changed := w.text.run(raw); changed {
		w.replace(start, end, red)
	}
}

func (w *jsonWalk) replace(start, end int, s []byte) {
	enc, _ := json.Marshal(string(s)) // a string always encodes
	w.edits = append(w.edits, edit{start: start, end: end, text: enc})
}

// netUserStep follows ["net", "user", NAME, PASSWORD] through an argument list: it
// returns 3 when the next argument is the password.
func netUserStep(state int8, arg []byte) int8 {
	switch {
	case bytes.EqualFold(arg, []byte("net")) || bytes.EqualFold(arg, []byte("net.exe")):
		return 1
	case state == 1 && bytes.EqualFold(arg, []byte("user")):
		return 2
	case state == 2:
		return 3
	}
	return 0
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
