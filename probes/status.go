// Package probes is the judging floor (docs/architecture.md): the vocabulary (Status,
// Finding, Fix), the registry, the root-cause rules, the one order of findings
// (order.go), and the probes, in files named for what they judge. Probes are pure: node
// and evidence in, findings out. A new probe reading existing evidence is its file, one
// line in Default's list (probe.go), and its scenarios in fixtures/scenarios/gen.
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

// Finding is one judgment about one node.
type Finding struct {
	Probe    string   `json:"probe"`              // stable ID, e.g. "HNS-NETWORK"; never parsed out of text
	Node     string   `json:"node"`               // node name; "" for cluster-wide findings
	Status   Status   `json:"status"`             // pass, skip, warn, fail, error
	Summary  string   `json:"summary"`            // one line
	Details  []string `json:"details,omitempty"`  // why, with expected vs actual
	Evidence []string `json:"evidence,omitempty"` // evidence paths that justify it
	Fix      *Fix     `json:"fix,omitempty"`      // nil when no fix applies
	CausedBy []Ref    `json:"causedBy,omitempty"` // findings that explain this one (see causes.go)
}

// FixKind says what carries a fix out.
type FixKind string

const (
	// NodeScript runs an embedded fix script (collect/scripts/fixes) on the node
	// through the transport that collected the evidence.
	NodeScript FixKind = "node-script"
	// KubeAPI is a Kubernetes API call (patch, cordon, drain, delete).
	KubeAPI FixKind = "kube-api"
	// Manual is advice a person carries out; the tool never runs it.
	Manual FixKind = "manual"
)

// Action is what a fix runs: for a NodeScript fix the name of its embedded fix script
// ("fix-start-service"), for a KubeAPI fix one of the API actions below. It travels in JSON
// as the plain string it always was.
type Action string

// The Kubernetes API actions a KubeAPI fix can name; the engine refuses any other.
const (
	PatchPodCIDR Action = "patch-podcidr" // set an empty spec.podCIDR (params: podCIDR)
	Cordon       Action = "cordon"        // mark the node unschedulable
	Drain        Action = "drain"         // cordon, then evict as kubectl drain does
	DeleteNode   Action = "delete-node"   // delete the Node object
	Taint        Action = "taint"         // add a taint (params: key, value, effect)
)

// Fix is data: what would run, shown before it runs, and how to verify it worked.
type Fix struct {
	ID         string         `json:"id"`                 // e.g. "start-service"
	Title      string         `json:"title"`              // one line, imperative
	Kind       FixKind        `json:"kind"`               // node-script, kube-api, manual
	Action     Action         `json:"action"`             // fix script name (fix-...) or one of the API actions below
	Params     map[string]any `json:"params,omitempty"`   // passed as data, never spliced into source
	Commands   []string       `json:"commands,omitempty"` // exactly what will run, for the preview
	Disruptive bool           `json:"disruptive"`         // confirmed by typing the node name (engine.Confirmation)
	Impact     string         `json:"impact,omitempty"`   // what it disrupts, said plainly
	Verify     string         `json:"verify"`             // probe ID re-run to verify
	// VerifyStatus is what the verifying probe shows once the fix worked; the zero value
	// means the finding cleared. A drain is verified by the node showing as cordoned (warn).
	VerifyStatus Expect   `json:"verifyStatus,omitzero"`
	Notes        []string `json:"notes,omitempty"`        // the lasting fix, alternatives
	Choices      []*Fix   `json:"choices,omitempty"`      // alternative fixes the user picks from
	Precheck     string   `json:"precondition,omitempty"` // what must still hold for the fix to apply
}

// Expect is what a fix's verifying probe must show once the fix worked. The zero value
// is "cleared": the finding no longer warns or fails (pass, or skip once the thing it
// judged is gone). Exactly asks for one status: a drain is verified by the node showing
// as cordoned (warn).
type Expect struct {
	status Status
	exact  bool
}

// Exactly expects one status.
func Exactly(s Status) Expect { return Expect{status: s, exact: true} }

// Met says whether a verifying finding's status shows the fix worked.
func (e Expect) Met(s Status) bool {
	if !e.exact {
		return s < Warn
	}
	return s == e.status
}

// IsZero is the default expectation (omitted from JSON).
func (e Expect) IsZero() bool { return !e.exact }

// String names the expectation: "pass" (or skip) by default, else the status.
func (e Expect) String() string {
	if !e.exact {
		return Pass.String()
	}
	return e.status.String()
}

// MarshalText writes the expected status; the default is omitted (omitzero).
func (e Expect) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads a status name: exactly that status.
func (e *Expect) UnmarshalText(b []byte) error {
	s, err := ParseStatus(string(b))
	if err != nil {
		return err
	}
	*e = Exactly(s)
	return nil
}
