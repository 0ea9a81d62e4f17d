package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzRedactJSON: redacting valid JSON gives valid JSON of the same shape (same keys,
// numbers and literals; a string is kept or shows the redaction), and redacting it
// again changes nothing.
func FuzzRedactJSON(f *testing.F) {
	for _, k := range kinds() {
		if IsJSON(k.file) {
			f.Add([]byte(k.text))
		}
	}
	f.Add([]byte(`{"CommandLine": "x.exe -Password \"Pw1\"", "n": 1.5e3, "ok": true, "v": null}`))
	f.Add([]byte("{\"a\": \"\\ud83d\\ude00 \\u00e9 \\/\"}\n{\"b\": [\"--token\", \"x\"]}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		r := Default()
		out := r.Bytes("x.json", in)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON out of valid JSON:\n%s\n->\n%s", in, out)
		}
		a, errA := decodeNumbers(in)
		b, errB := decodeNumbers(out)
		if errA != nil || errB != nil {
			t.Fatalf("does not decode: %v, %v", errA, errB)
		}
		if why := sameShape(a, b); why != "" {
			t.Fatalf("%s:\n%s\n->\n%s", why, in, out)
		}
		if again := Default().Bytes("x.json", out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n%s\n->\n%s", out, again)
		}
	})
}

// decodeNumbers decodes JSON keeping numbers as written (1e700 is valid JSON).
func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// sameShape says how b differs from a beyond redacted strings, or "".
func sameShape(a, b any) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(bm) != len(a) {
			return "an object changed"
		}
		for k, v := range a {
			bv, ok := bm[k]
			if !ok {
				return "key " + k + " lost"
			}
			if why := sameShape(v, bv); why != "" {
				return why
			}
		}
	case []any:
		bs, ok := b.([]any)
		if !ok || len(bs) != len(a) {
			return "an array changed"
		}
		for i := range a {
			if why := sameShape(a[i], bs[i]); why != "" {
				return why
			}
		}
	case string:
		bs, ok := b.(string)
		if !ok || bs != a && !strings.Contains(bs, Replacement) {
			return "a string changed without a redaction"
		}
	default:
		if a != b {
			return "a scalar changed"
		}
	}
	return ""
}

// FuzzUnescape: the hand-written unescaper agrees with encoding/json.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`a\"b`, `\ud83d\ude00`, `\ud800x`, `\udc00\ud800`, `\u00e9\/\\\b\f\n\r\t`, `plain`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		lit := []byte(`"` + body + `"`)
		if !json.Valid(lit) {
			return
		}
		var want string
		if err := json.Unmarshal(lit, &want); err != nil {
			t.Fatal(err)
		}
		end, _ := stringEnd(lit, 0)
		if end != len(lit) {
			t.Fatalf("stringEnd(%q) = %d, want %d", lit, end, len(lit))
		}
		// Invalid UTF-8 is kept as it is (encoding/json makes it U+FFFD, as json.Marshal
		// does when a redacted string is written back).
		if got := string(unescape(nil, lit[1:len(lit)-1])); string([]rune(got)) != want {
			t.Fatalf("unescape(%q) = %q, encoding/json says %q", body, got, want)
		}
	})
}

// FuzzRedactText: any text is redacted without panicking, a second pass changes
// nothing, and a secret on a line of its own is gone whatever surrounds it.
func FuzzRedactText(f *testing.F) {
	for _, k := range kinds() {
		if !IsJSON(k.file) {
			f.Add(k.text)
		}
	}
	f.Add("{\"data\": {\"k\": \"v\n\"kind\": \"Secret\"}")
	f.Fuzz(func(t *testing.T, text string) {
		in := text + "\npassword=FuzzSecret-1234\n" + text
		out := Default().String("x.log", in)
		if strings.Contains(out, "FuzzSecret-1234") {
			t.Fatalf("the planted secret survived:\n%q", out)
		}
		if again := Default().String("x.log", out); again != out {
			t.Fatalf("not idempotent:\n%q\n->\n%q", out, again)
		}
	})
}
