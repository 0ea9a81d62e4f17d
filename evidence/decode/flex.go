package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Str accepts a JSON string, number, boolean or null: PowerShell's JSON types a value
// differently by build and by how it was selected (CurrentBuild "17763" vs 17763).
type Str string

func (s *Str) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*s = ""
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = Str(v)
	case len(b) > 0 && (b[0] == '{' || b[0] == '['):
		return fmt.Errorf("expected a string or a number, found %.20s", b)
	default:
		*s = Str(strings.Trim(string(b), `"`))
	}
	return nil
}

// Int accepts a JSON number or a numeric string.
type Int int64

func (n *Int) UnmarshalJSON(b []byte) error {
	var s Str
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	if s == "" {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(s)), 10, 64)
	if err != nil {
		return err
	}
	*n = Int(v)
	return nil
}

// Strings accepts a JSON array of strings, a single string (PS 5.1 unwraps one-item
// arrays) or null.
type Strings []string

func (ss *Strings) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var raw []Str
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
		*ss = (*ss)[:0]
		for _, r := range raw {
			if r != "" {
				*ss = append(*ss, string(r))
			}
		}
		return nil
	}
	var s Str
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	if s == "" {
		*ss = nil
	} else {
		*ss = Strings{string(s)}
	}
	return nil
}
