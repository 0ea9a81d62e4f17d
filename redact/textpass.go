package redact

import (
	"bytes"

	"golang.org/x/text/encoding/unicode"
)

// textPass redacts short texts (JSON string values) one after the other with one line
// filter, so a file of a hundred thousand strings does not build as many filters.
type textPass struct {
	lf   *lineFilter
	out  bytes.Buffer
	lits [][]byte
	all  bool // custom rules: no shortcut can know what they match
}

func (r *Redactor) newTextPass(counts map[string]int) *textPass {
	tp := &textPass{}
	tp.lf = r.newLineFilter(&tp.out, counts)
	tp.lits, tp.all = tp.lf.lits, r.custom
	return tp
}

// run returns s redacted by the text pipeline, and whether that changed it.
func (tp *textPass) run(s []byte) ([]byte, bool) {
	if !tp.all && !mayHoldSecret(s) && !containsAny(s, tp.lits) {
		return s, false
	}
	tp.out.Reset()
	tp.lf.buf, tp.lf.inPEM, tp.lf.pemMarked = tp.lf.buf[:0], false, false
	// The Secret scanner only matters where a Secret's JSON is embedded in the value.
	if bytes.Contains(s, []byte(`Data"`)) || bytes.Contains(s, []byte(`"data"`)) || bytes.Contains(s, []byte("last-applied-configuration")) {
		sj := newSecretJSON(tp.lf, tp.lf.counts, true)
		sj.Write(s) // to memory: no error
		sj.Close()
	} else {
		tp.lf.Write(s)
	}
	tp.lf.Close()
	if bytes.Equal(tp.out.Bytes(), s) {
		return s, false
	}
	return tp.out.Bytes(), true
}

// mayHoldSecret is the cheap test for a short text (a JSON string value): every
// built-in rule needs a blank, '=' or ':' in what it matches, except bare tokens
// (bootstrap tokens, JWTs, AWS key ids), which are long and have a dot or an AKIA/ASIA.
func mayHoldSecret(s []byte) bool {
	if bytes.ContainsAny(s, " \t\r\n=:") {
		return true
	}
	return len(s) >= 16 && (bytes.IndexByte(s, '.') >= 0 || bytes.Contains(s, []byte("AKIA")) || bytes.Contains(s, []byte("ASIA")))
}

func containsAny(s []byte, forms [][]byte) bool {
	for _, f := range forms {
		if bytes.Contains(s, f) {
			return true
		}
	}
	return false
}

// fromUTF16 converts UTF-16 text with a byte-order mark (as Windows PowerShell's
// Out-File writes it) to UTF-8; ok is false for anything else.
func fromUTF16(b []byte) ([]byte, bool) {
	if len(b) < 2 || !(b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) {
		return nil, false
	}
	u, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(b)
	if err != nil {
		return nil, false
	}
	return u, true
}

// toUTF16 encodes UTF-8 text back into the UTF-16 of orig, byte-order mark included.
func toUTF16(u, orig []byte) []byte {
	order := unicode.LittleEndian
	if orig[0] == 0xfe {
		order = unicode.BigEndian
	}
	out, err := unicode.UTF16(order, unicode.UseBOM).NewEncoder().Bytes(u)
	if err != nil {
		return u // cannot happen for text that came out of a decoder; UTF-8 is still redacted
	}
	return out
}
