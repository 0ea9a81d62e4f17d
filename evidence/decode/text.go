// Package decode turns evidence bytes into typed values. It accepts what Windows
// PowerShell 5.1 really emits (UTF-16LE with BOM from Out-File, a UTF-8 BOM, CRLF, two
// spaces after colons, one object where an array is expected) and rejects anything else
// with an error that names the file and the problem.
package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// Error names the evidence file and what is wrong with it.
type Error struct {
	File    string
	Problem string
	Err     error
}

func (e *Error) Error() string {
	if e.File == "" {
		return e.Problem
	}
	return e.File + ": " + e.Problem
}

func (e *Error) Unwrap() error { return e.Err }

func fail(file string, err error, format string, a ...any) error {
	return &Error{File: file, Problem: fmt.Sprintf(format, a...), Err: err}
}

// Text returns the evidence as UTF-8 without a byte-order mark. UTF-16 (with a BOM, as
// Out-File writes, or without one when every other byte is NUL) is converted; invalid
// UTF-8 is refused with the offset of the first bad byte.
func Text(file string, b []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		b = b[3:]
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}), looksUTF16LE(b):
		if len(b)%2 != 0 {
			return nil, fail(file, nil, "UTF-16 text with an odd number of bytes (%d): the file was cut short", len(b))
		}
		dec := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewDecoder()
		out, err := dec.Bytes(b)
		if err != nil {
			return nil, fail(file, err, "not valid UTF-16: %v", err)
		}
		b = out
	case looksUTF16BE(b):
		// Windows writes UTF-16LE; big-endian without a BOM comes from a converter or an
		// editor, and guessing the byte order of someone else's file could garble it.
		return nil, fail(file, nil, "looks like UTF-16BE without a byte-order mark; re-save as UTF-8 (every character has a NUL before it)")
	}
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			r, n := utf8.DecodeRune(b[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return nil, fail(file, nil, "not UTF-8 text (bad byte 0x%02x at offset %d); save it as UTF-8 or UTF-16 (Out-File -Encoding utf8)", b[off], off)
	}
	return b, nil
}

// looksUTF16LE spots BOM-less UTF-16LE: ASCII text with a NUL after every character.
func looksUTF16LE(b []byte) bool {
	if len(b) < 4 || len(b)%2 != 0 {
		return false
	}
	n := min(len(b), 64)
	for i := 1; i < n; i += 2 {
		if b[i] != 0 || b[i-1] == 0 {
			return false
		}
	}
	return true
}

// looksUTF16BE spots BOM-less UTF-16BE: ASCII text with a NUL before every character,
// which is valid UTF-8 (NUL is a character) and would otherwise fail later as bad JSON.
func looksUTF16BE(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	n := min(len(b)&^1, 64)
	for i := 0; i+1 < n; i += 2 {
		if b[i] != 0 || b[i+1] == 0 {
			return false
		}
	}
	return true
}

// Array decodes JSON that should be a list of T. It accepts an array, a single object (PS
// 5.1 unwraps one-item arrays), a stream of values one after another (crictl inspecti with
// several images, JSON lines), and empty output (PS prints nothing for an empty array).
func Array[T any](file string, b []byte) ([]T, error) {
	raws, err := Values(file, b)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(raws))
	for i, r := range raws {
		var v T
		if err := json.Unmarshal(r, &v); err != nil {
			return nil, fail(file, err, "item %d: %v", i+1, describeJSONErr(err))
		}
		out = append(out, v)
	}
	return out, nil
}

// Values splits JSON evidence into its items, flattening top-level arrays.
func Values(file string, b []byte) ([]json.RawMessage, error) {
	t, err := Text(file, b)
	if err != nil {
		return nil, err
	}
	t = bytes.TrimSpace(t)
	var out []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(t))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fail(file, err, "not valid JSON at line %d: %v%s", lineOf(t, dec.InputOffset()), describeJSONErr(err), paste.Hint(t))
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fail(file, err, "not a JSON array: %v", err)
			}
			out = append(out, items...)
			continue
		}
		if len(raw) > 0 && raw[0] != '{' {
			return nil, fail(file, nil, "expected JSON objects, found %.40s", string(raw))
		}
		out = append(out, raw)
	}
	return out, nil
}

// Object decodes JSON that should be one object (an array of one is accepted too).
func Object[T any](file string, b []byte) (T, error) {
	var zero T
	items, err := Array[T](file, b)
	if err != nil {
		return zero, err
	}
	if len(items) != 1 {
		return zero, fail(file, nil, "expected one JSON object, found %d", len(items))
	}
	return items[0], nil
}

func lineOf(b []byte, off int64) int {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return bytes.Count(b[:off], []byte{'\n'}) + 1
}

func describeJSONErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Error() == "unexpected end of JSON input" {
			return "the JSON ends early (output cut short?)"
		}
	}
	if err.Error() == "unexpected EOF" {
		return "the JSON ends early (output cut short?)"
	}
	return err.Error()
}
