// Package paste reads what customers paste from a console instead of JSON: PowerShell
// list and table views (wrapped at any width, re-indented, localized), fixed-width
// tables (docker, kubectl, crictl), and logs with prompts and prefixes. It depends on
// nothing else in the project, so the JSON decoders can ask it what a refused file
// looks like (Describe) without an import cycle; the conversion to evidence files is in
// ingest/importer.
//
// Everything here is hand-written: no Go library parses PowerShell's Format-List or
// Format-Table text, and their rules (word wrap at the console width, nested objects
// printed as hashtable literals, collections cut after a few items) are PowerShell's
// formatting engine's, not a grammar.
package paste

import (
	"strings"
)

// Kind says what a printed value was.
type Kind int

const (
	// Empty: nothing after the colon (a null, an empty string or an empty object).
	Empty Kind = iota
	// Scalar: plain text ("nat", "0", "False", "Microsoft Windows-Filterplattform").
	Scalar
	// Object: a nested object printed as a hashtable literal, @{Key=Value; ...}.
	Object
	// List: a collection, {a, b} or {@{...}, @{...}}; Truncated when PowerShell cut it
	// ("{a, b, c...}", $FormatEnumerationLimit).
	List
	// Collapsed: a value nested too deep, printed as its type name (System.Object[],
	// System.Collections.ArrayList): the console did not show it.
	Collapsed
)

// Value is one printed value, parsed back into its structure.
type Value struct {
	Kind      Kind
	Text      string  // Scalar and Collapsed
	Fields    []Field // Object
	Items     []Value // List
	Truncated bool    // List
}

// Field is one Name : value pair of a list view, or Key=Value of a hashtable literal.
type Field struct {
	Name  string
	Value Value
}

// Record is one object of a list view: its fields in the printed order.
type Record struct {
	Fields []Field
	Line   int // 1-based line of its first field in the parsed text
}

// Get returns the named field (PowerShell names are case-insensitive).
func (r Record) Get(name string) (Value, bool) { return lookup(r.Fields, name) }

// Get returns a nested object's field.
func (v Value) Get(name string) (Value, bool) { return lookup(v.Fields, name) }

func lookup(fs []Field, name string) (Value, bool) {
	for _, f := range fs {
		if strings.EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return Value{}, false
}

// ParseValue reads one printed value back: hashtable literals, collections, type names.
func ParseValue(s string) Value {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Value{Kind: Empty}
	case isCollapsed(s):
		return Value{Kind: Collapsed, Text: s}
	case strings.HasPrefix(s, "@{") && strings.HasSuffix(s, "}") && balanced(s):
		return Value{Kind: Object, Fields: parseFields(s[2 : len(s)-1])}
	case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && balanced(s):
		inner := strings.TrimSpace(s[1 : len(s)-1])
		v := Value{Kind: List}
		if rest, ok := strings.CutSuffix(inner, "..."); ok {
			v.Truncated, inner = true, strings.TrimSpace(rest)
		}
		for _, part := range splitTop(inner, ',') {
			if part = strings.TrimSpace(part); part != "" {
				v.Items = append(v.Items, ParseValue(part))
			}
		}
		return v
	}
	return Value{Kind: Scalar, Text: s}
}

func isCollapsed(s string) bool {
	// The type names PowerShell prints for what it nested too deep to show.
	for _, t := range [...]string{"System.Object[]", "System.Collections.ArrayList", "System.Collections.Hashtable",
		"System.Management.Automation.PSCustomObject", "System.Collections.Generic.List"} {
		if strings.HasPrefix(s, t) && !strings.ContainsAny(s, " ;=") {
			return true
		}
	}
	return false
}

// balanced reports whether the braces of s close where s ends: "{a} {b}" is not one list.
func balanced(s string) bool {
	depth := 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 && i != len(s)-1 {
				return false
			}
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

func parseFields(s string) []Field {
	var out []Field
	for _, part := range splitTop(s, ';') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			// A value with a ';' of its own: it belongs to the previous field.
			if len(out) > 0 && out[len(out)-1].Value.Kind == Scalar {
				out[len(out)-1].Value.Text += "; " + part
				continue
			}
			out = append(out, Field{Name: part, Value: Value{Kind: Empty}})
			continue
		}
		out = append(out, Field{Name: strings.TrimSpace(k), Value: ParseValue(v)})
	}
	return out
}

// splitTop splits s at sep outside braces.
func splitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// String prints the value the way PowerShell's list view does.
func (v Value) String() string {
	switch v.Kind {
	case Scalar, Collapsed:
		return v.Text
	case Object:
		parts := make([]string, len(v.Fields))
		for i, f := range v.Fields {
			parts[i] = f.Name + "=" + f.Value.String()
		}
		return "@{" + strings.Join(parts, "; ") + "}"
	case List:
		parts := make([]string, len(v.Items))
		for i, it := range v.Items {
			parts[i] = it.String()
		}
		s := strings.Join(parts, ", ")
		if v.Truncated {
			s += "..."
		}
		return "{" + s + "}"
	}
	return ""
}

// Plain is the value as plain Go data for goldens and JSON: strings, maps, slices; a
// truncated list ends with "..." and a collapsed value is its type name in angle brackets.
func (v Value) Plain() any {
	switch v.Kind {
	case Scalar:
		return v.Text
	case Collapsed:
		return "<" + v.Text + ">"
	case Object:
		m := map[string]any{}
		for _, f := range v.Fields {
			m[f.Name] = f.Value.Plain()
		}
		return m
	case List:
		out := make([]any, 0, len(v.Items)+1)
		for _, it := range v.Items {
			out = append(out, it.Plain())
		}
		if v.Truncated {
			out = append(out, "...")
		}
		return out
	}
	return nil
}

// Plain is the record as a map of its fields' plain values.
func (r Record) Plain() map[string]any {
	m := map[string]any{}
	for _, f := range r.Fields {
		m[f.Name] = f.Value.Plain()
	}
	return m
}
