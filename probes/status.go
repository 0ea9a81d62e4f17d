// Package probes is the first floor: the vocabulary (Status, Finding, Fix), the probe
// registry, and one file per probe. Probes are pure: node + evidence in, findings out.
package probes

import (
	"fmt"
	"strings"
)

// Status is ordered: Pass < Skip < Warn < Fail < Error. Error means "could not judge".
type Status int

const (
	Pass Status = iota
	Skip
	Warn
	Fail
	Error
)

func statusNames() []string { return []string{"pass", "skip", "warn", "fail", "error"} }

func (s Status) String() string {
	if s < Pass || s > Error {
		return fmt.Sprintf("status(%d)", int(s))
	}
	return statusNames()[s]
}

// Glyph is the status symbol shown where colour alone must not carry meaning.
func (s Status) Glyph() string {
	switch s {
	case Pass:
		return "✓"
	case Skip:
		return "–"
	case Warn:
		return "!"
	case Fail:
		return "✗"
	default:
		return "?"
	}
}

// ParseStatus reads a status name (as used by --fail-on and in JSON).
func ParseStatus(s string) (Status, error) {
	for i, n := range statusNames() {
		if strings.EqualFold(s, n) {
			return Status(i), nil
		}
	}
	return 0, fmt.Errorf("unknown status %q (want one of %s)", s, strings.Join(statusNames(), ", "))
}

// MarshalText makes Status a string in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *Status) UnmarshalText(b []byte) error {
	v, err := ParseStatus(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
