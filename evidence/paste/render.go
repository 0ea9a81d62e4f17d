package paste

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// RecordsFromJSON is what Windows PowerShell's list view prints for JSON objects read
// back with ConvertFrom-Json: each object a record, its properties in order; a nested
// object as @{...} and an array as {...}; one level further down an object prints as
// nothing and an array as System.Object[]; booleans as True/False and null as nothing.
// It renders evidence the way a customer would paste it (tests, examples).
func RecordsFromJSON(b []byte) ([]Record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var raws []json.RawMessage
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("reading the JSON to render: %w", err)
		}
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(t, &items); err != nil {
				return nil, fmt.Errorf("reading the JSON to render: %w", err)
			}
			raws = append(raws, items...)
			continue
		}
		raws = append(raws, raw)
	}
	var recs []Record
	for _, raw := range raws {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		v, err := readJSON(d, 0)
		if err != nil {
			return nil, fmt.Errorf("reading the JSON to render: %w", err)
		}
		if v.Kind != Object && v.Kind != Empty {
			return nil, fmt.Errorf("rendering JSON: expected objects, found %s", bytes.TrimSpace(raw)[:1])
		}
		recs = append(recs, Record{Fields: v.Fields})
	}
	return recs, nil
}

// readJSON reads one JSON value at depth (0: the record, 1: one of its properties,
// 2 and more: inside a property's object or array).
func readJSON(dec *json.Decoder, depth int) (Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return Value{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		var v Value
		if t == '{' {
			v.Kind = Object
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return Value{}, err
				}
				fv, err := readJSON(dec, depth+1)
				if err != nil {
					return Value{}, err
				}
				v.Fields = append(v.Fields, Field{Name: fmt.Sprint(k), Value: fv})
			}
		} else {
			v.Kind = List
			for dec.More() {
				iv, err := readJSON(dec, depth+1)
				if err != nil {
					return Value{}, err
				}
				v.Items = append(v.Items, iv)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return Value{}, err
		}
		return collapse(v, depth), nil
	case nil:
		return Value{Kind: Empty}, nil
	case bool:
		if t {
			return Value{Kind: Scalar, Text: "True"}, nil
		}
		return Value{Kind: Scalar, Text: "False"}, nil
	case json.Number:
		return Value{Kind: Scalar, Text: t.String()}, nil
	case string:
		if strings.TrimSpace(t) == "" {
			return Value{Kind: Empty}, nil
		}
		return Value{Kind: Scalar, Text: t}, nil
	}
	return Value{}, fmt.Errorf("unexpected JSON token %v", tok)
}

// collapse applies the list view's depth: inside a property's object or array, an
// array prints as its type name, and an empty object as nothing anywhere.
func collapse(v Value, depth int) Value {
	switch {
	case depth >= 2 && v.Kind == List:
		return Value{Kind: Collapsed, Text: "System.Object[]"}
	case v.Kind == Object && len(v.Fields) == 0 && depth > 0:
		return Value{Kind: Empty}
	}
	return v
}

// FormatTable prints rows the way Format-Table does: each column as wide as its widest
// cell (or header), a line of dashes under the header, cells left-aligned.
func FormatTable(cols []string, rows [][]string) string {
	w := make([]int, len(cols))
	for i, c := range cols {
		w[i] = Cells(c)
	}
	for _, r := range rows {
		for i := range cols {
			if i < len(r) {
				w[i] = max(w[i], Cells(r[i]))
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		var l strings.Builder
		for i := range cols {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			l.WriteString(c)
			if i < len(cols)-1 {
				l.WriteString(strings.Repeat(" ", w[i]-Cells(c)+1))
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	b.WriteString("\n")
	line(cols)
	d := make([]string, len(cols))
	for i, c := range cols {
		d[i] = strings.Repeat("-", Cells(c))
	}
	line(d)
	for _, r := range rows {
		line(r)
	}
	b.WriteString("\n")
	return b.String()
}
