package redact

import (
	"bytes"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// textPass redacts short texts (JSON string values) one after the other with one line
// filter, so a file of a hundred thousand strings does not build as many filters.
type textPass struct {
	lf   *lineFilter
	out  bytes.Buffer
	lits [][]byte
	all  bool // custom rules: no shortcut can know what they match
	low  []byte
}

func (r *Redactor) newTextPass(counts map[string]int) *textPass {
	tp := &textPass{}
	tp.lf = r.newLineFilter(&tp.out, counts)
	tp.lits, tp.all = tp.lf.lits, r.custom
	return tp
}

// run returns s redacted by the text pipeline, and whether that changed it.
func (tp *textPass) run(s []byte) ([]byte, bool) {
	if !tp.all && !mayHoldSecret(s) && !containsAny(s, tp.lits) && !tp.leakKeyword(s) {
		return s, false
	}
	tp.out.Reset()
	tp.lf.buf, tp.lf.inPEM, tp.lf.pemMarked, tp.lf.tail = tp.lf.buf[:0], false, false, tp.lf.tail[:0]
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

// leakKeyword reports whether a keyword of one of gitleaks' rules is in s: its bare
// tokens (ghp_..., xoxb-...) need no blank, '=' or ':'.
func (tp *textPass) leakKeyword(s []byte) bool {
	if tp.lf.leaks == nil {
		return false
	}
	tp.low = lowerASCII(tp.low, s)
	return tp.lf.leaks.any(tp.low)
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

// utf16Form is how a UTF-16 file is written: its byte order and whether it starts
// with a byte-order mark. Windows PowerShell's Out-File writes UTF-16LE with one; a
// file cut out of a longer one, or written by [IO.File]::WriteAllText with
// [Text.Encoding]::Unicode's GetBytes, has none.
type utf16Form struct {
	order unicode.Endianness
	bom   bool
}

// sniffUTF16 tells UTF-16 from UTF-8: by its byte-order mark, or else by NUL bytes in
// every other position of the first KiB (ASCII text in UTF-16), which UTF-8 text never
// holds.
func sniffUTF16(b []byte) (utf16Form, bool) {
	if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
		return utf16Form{unicode.LittleEndian, true}, true
	}
	if len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff {
		return utf16Form{unicode.BigEndian, true}, true
	}
	n := min(len(b), 1024) &^ 1
	if n < 4 {
		return utf16Form{}, false
	}
	var zeroEven, zeroOdd int
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			zeroEven++
		}
		if b[i+1] == 0 {
			zeroOdd++
		}
	}
	pairs := n / 2
	switch {
	case zeroOdd*10 >= pairs*6 && zeroEven*20 <= pairs:
		return utf16Form{unicode.LittleEndian, false}, true
	case zeroEven*10 >= pairs*6 && zeroOdd*20 <= pairs:
		return utf16Form{unicode.BigEndian, false}, true
	}
	return utf16Form{}, false
}

func (f utf16Form) encoding() encoding.Encoding {
	if f.bom {
		return unicode.UTF16(f.order, unicode.ExpectBOM)
	}
	return unicode.UTF16(f.order, unicode.IgnoreBOM)
}

// fromUTF16 converts UTF-16 text (with or without a byte-order mark) to UTF-8; ok is
// false for anything else.
func fromUTF16(b []byte) ([]byte, utf16Form, bool) {
	f, ok := sniffUTF16(b)
	if !ok {
		return nil, f, false
	}
	u, err := f.encoding().NewDecoder().Bytes(b)
	if err != nil {
		return nil, f, false
	}
	return u, f, true
}

// toUTF16 encodes UTF-8 text back into the UTF-16 form it came in, byte-order mark
// included when it had one.
func toUTF16(u []byte, f utf16Form) []byte {
	enc := unicode.UTF16(f.order, unicode.IgnoreBOM).NewEncoder()
	if f.bom {
		enc = unicode.UTF16(f.order, unicode.UseBOM).NewEncoder()
	}
	out, err := enc.Bytes(u)
	if err != nil {
		return u // cannot happen for text that came out of a decoder; UTF-8 is still redacted
	}
	return out
}
