package redact

import (
	"bytes"
	"strings"
)

// escapeSafe widens or narrows the span [s, e) of line so that replacing it cannot break
// an escape sequence: a JSON document inside a log line, or a JSON string holding a
// log, stays valid JSON. A span that starts inside an escape (\" or \u00e9) takes the
// whole escape; one that ends on a lone backslash leaves it, with what it escapes.
func escapeSafe(line []byte, s, e int) (int, int) {
	for p := s - 1; p >= 0 && p >= s-5; p-- {
		if line[p] != '\\' || backslashesBefore(line, p)%2 == 1 {
			continue
		}
		size := 2
		if p+1 < len(line) && line[p+1] == 'u' {
			size = 6
		}
		if p+size > s {
			s = p
		}
		break
	}
	for e > s && line[e-1] == '\\' && (backslashesBefore(line, e-1)+1)%2 == 1 {
		e--
	}
	return s, e
}

// backslashesBefore counts the backslashes right before line[p].
func backslashesBefore(line []byte, p int) int {
	n := 0
	for p > 0 && line[p-1] == '\\' {
		n++
		p--
	}
	return n
}

// appendReplacement appends the replacement for line[s:e]. A value that is the whole
// plain (unquoted) value of a YAML or TOML key ("token: x", "- x", "key = x", up to the
// end of the line or a comment) is replaced quoted, '***REDACTED***': a bare '*' starts
// a YAML alias and is no TOML value, and either would make the file unreadable.
//
// A number or boolean that is a JSON member's value ("password": 1234, a JSON document
// in a log line) becomes the string "***REDACTED***", with the key's own quotes (escaped
// as they are, inside a JSON string): a bare word would break the document.
func appendReplacement(dst, line []byte, s, e int) []byte {
	if q, ok := jsonScalar(line, s, e); ok {
		return append(append(append(dst, q...), Replacement...), q...)
	}
	if !plainValue(line, s, e) {
		return append(dst, Replacement...)
	}
	return append(append(append(dst, '\''), Replacement...), '\'')
}

func plainValue(line []byte, s, e int) bool {
	if s == 0 || (line[s-1] != ' ' && line[s-1] != '\t') {
		return false
	}
	rest := bytes.TrimRight(line[e:], " \t")
	if len(rest) > 0 && !bytes.HasPrefix(bytes.TrimLeft(line[e:], " \t"), []byte("#")) {
		return false
	}
	if len(rest) > 0 && line[e] != ' ' && line[e] != '\t' {
		return false
	}
	before := bytes.TrimRight(line[:s], " \t")
	if len(before) == 0 {
		return false
	}
	switch before[len(before)-1] {
	case ':', '=':
		return true
	case '-':
		return len(bytes.TrimLeft(before, " \t")) == 1
	}
	return false
}

// escapedQuoted widens a span that starts with an escaped quote (\" or \', as a JSON
// string inside a log line quotes its values: api_key=\"x\") to the value that quote
// encloses, up to the matching escaped quote or the end of the token: a rule written for
// plain text would otherwise take the backslash for the value.
func escapedQuoted(line []byte, s, e int) (int, int) {
	if s+1 >= len(line) || line[s] != '\\' || (line[s+1] != '"' && line[s+1] != '\'') {
		return s, e
	}
	q := []byte{'\\', line[s+1]}
	from := s + 2
	end := bytes.Index(line[from:], q)
	if end < 0 {
		end = bytes.IndexAny(line[from:], " \t\"")
		if end < 0 {
			end = len(line) - from
		}
	}
	if end == 0 {
		return s, e
	}
	return from, from + end
}

// unquoteSpan narrows a span of line so that it neither starts nor ends on a quote that
// is not escaped: such a quote opens or closes the string the secret is in (a JSON
// document in a log line, a YAML or TOML string) and must stay for it to parse. A rule
// whose secret takes its quotes along ("user":"password") keeps them so.
func unquoteSpan(line []byte, s, e int) (int, int) {
	for s < e && (line[s] == '"' || line[s] == '\'') && backslashesBefore(line, s)%2 == 0 {
		s++
	}
	for e > s && (line[e-1] == '"' || line[e-1] == '\'') && backslashesBefore(line, e-1)%2 == 0 {
		e--
	}
	return s, e
}

// keepSpan reports whether a rule's span must stay as it is: a YAML block indicator
// (password: |) is no value, the lines after it are, and yamlSecrets replaces those.
func keepSpan(line []byte, s, e int) bool {
	return blockIndicator(line[s:e]) && plainValue(line, s, e)
}

// scalarSpan narrows a span that starts a JSON member's bare value ("password": 1234})
// to that value: a rule written for text takes the '}' or ']' after it along.
func scalarSpan(line []byte, s, e int) (int, int) {
	if _, ok := jsonKeyBefore(line, s); !ok {
		return s, e
	}
	if i := bytes.IndexAny(line[s:e], ",}] \t\\\""); i > 0 {
		e = s + i
	}
	return s, e
}

// jsonScalar reports whether line[s:e] is the bare value of a JSON member, and the quote
// the key is written with (", or \" inside a JSON string).
func jsonScalar(line []byte, s, e int) (string, bool) {
	q, ok := jsonKeyBefore(line, s)
	if !ok || e <= s || line[s] == '"' || line[s] == '\\' {
		return "", false
	}
	after := bytes.TrimLeft(line[e:], " \t")
	if len(after) > 0 && after[0] != ',' && after[0] != '}' && after[0] != ']' && after[0] != '\\' {
		return "", false
	}
	return q, true
}

// jsonKeyBefore reports whether a JSON key ("key": ) ends right before line[s], and
// the quote it closes with.
func jsonKeyBefore(line []byte, s int) (string, bool) {
	before := bytes.TrimRight(line[:s], " \t")
	if len(before) < 3 || before[len(before)-1] != ':' {
		return "", false
	}
	before = bytes.TrimRight(before[:len(before)-1], " \t")
	if len(before) == 0 || before[len(before)-1] != '"' {
		return "", false
	}
	n := backslashesBefore(before, len(before)-1)
	return strings.Repeat("\\", n) + "\"", true
}
