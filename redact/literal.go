package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"
)

// RuleLiteral counts literal secrets (AddLiteral) replaced.
const RuleLiteral = "literal-secret"

// MinLiteral is the shortest literal secret AddLiteral takes: replacing every "ab" in
// the evidence would destroy it without protecting anything.
const MinLiteral = 4

type literal struct{ forms [][]byte }

// AddLiteral makes the redactor replace secret wherever it appears, whatever the
// context: as is, JSON- and XML-escaped, URL-encoded, with PowerShell's doubled single
// quotes, and base64 (UTF-8 and the UTF-16LE of -EncodedCommand). Use it for the node
// password the tool itself sent. A secret shorter than MinLiteral is refused.
func (r *Redactor) AddLiteral(secret string) error {
	if len(secret) < MinLiteral {
		return fmt.Errorf("a literal secret of %d bytes is too short to redact everywhere (at least %d)", len(secret), MinLiteral)
	}
	forms := map[string]bool{secret: true}
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		enc.Encode(secret) // a string always encodes
		forms[strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:]] = true
	}
	forms[html.EscapeString(secret)] = true
	forms[url.QueryEscape(secret)] = true
	forms[url.PathEscape(secret)] = true
	forms[strings.ReplaceAll(secret, "'", "''")] = true
	forms[base64.StdEncoding.EncodeToString([]byte(secret))] = true
	u16 := utf16.Encode([]rune(secret))
	le := make([]byte, 0, 2*len(u16))
	for _, c := range u16 {
		le = append(le, byte(c), byte(c>>8))
	}
	forms[base64.StdEncoding.EncodeToString(le)] = true
	var l literal
	for f := range forms {
		if len(f) >= MinLiteral {
			l.forms = append(l.forms, []byte(f))
		}
	}
	// Longest first: a form that contains another is replaced whole.
	slices.SortFunc(l.forms, func(a, b []byte) int { return len(b) - len(a) })
	r.mu.Lock()
	defer r.mu.Unlock()
	r.literals = append(r.literals, l)
	return nil
}

// literalForms lists every form of every literal secret, longest first.
func (r *Redactor) literalForms() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]byte
	for _, l := range r.literals {
		out = append(out, l.forms...)
	}
	slices.SortStableFunc(out, func(a, b []byte) int { return len(b) - len(a) })
	return out
}

// replaceLiterals replaces every form of the literal secrets in b. It returns b itself
// when none occurs.
func replaceLiterals(b []byte, forms [][]byte, counts map[string]int) []byte {
	for _, f := range forms {
		if n := bytes.Count(b, f); n > 0 {
			b = bytes.ReplaceAll(b, f, []byte(Replacement))
			counts[RuleLiteral] += n
		}
	}
	return b
}
