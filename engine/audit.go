package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// AuditEntry is one fix attempt, appended to the audit log as one JSON line.
type AuditEntry struct {
	Time     time.Time `json:"time"`
	User     string    `json:"user"`
	Node     string    `json:"node"`
	Probe    string    `json:"probe"`
	Fix      string    `json:"fix"`
	Commands []string  `json:"commands"`
	Result   Result    `json:"result"` // verified, not-verified, failed, refused, declined
	Reason   string    `json:"reason,omitempty"`
	Output   string    `json:"output,omitempty"`
}

// Audit appends entries to a JSON-lines file. Fixes carry no passwords, but outputs
// are what the node printed and commands may quote one: each entry goes through Redact
// (the run's redactor; nil for none) before it is written.
type Audit struct {
	Path   string
	Redact *redact.Redactor
	mu     sync.Mutex
}

// Check says whether the log can be written, without writing to it: its folder is
// created and the file opened for appending. A fix is refused when it fails, so that a
// change to a node is never left unrecorded by accident (--no-audit opts out).
func (a *Audit) Check() error {
	if a == nil || a.Path == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	err := os.MkdirAll(filepath.Dir(a.Path), 0o700)
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(a.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			err = f.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("cannot write the audit log at %s: %w; pass --no-audit to run without one", a.Path, err)
	}
	return nil
}

// DefaultAuditPath is $XDG_STATE_HOME/wintroubleshoot/audit.jsonl, or
// ~/.local/state/wintroubleshoot/audit.jsonl.
func DefaultAuditPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "wintroubleshoot", "audit.jsonl")
}

// Append writes one entry; each is a single write so concurrent writers do not interleave.
func (a *Audit) Append(e AuditEntry) error {
	if a == nil || a.Path == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(a.Path), 0o700); err != nil {
		return fmt.Errorf("creating the audit log folder: %w", err)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encoding an audit entry: %w", err)
	}
	if a.Redact != nil {
		line = a.Redact.Bytes("audit.jsonl", line)
	}
	f, err := os.OpenFile(a.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("opening the audit log: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("writing the audit log: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing the audit log: %w", err)
	}
	return nil
}

// Entries reads the log back (for tests and snapshots).
func (a *Audit) Entries() ([]AuditEntry, error) {
	b, err := os.ReadFile(a.Path)
	if err != nil {
		return nil, err
	}
	var out []AuditEntry
	for _, line := range splitLines(b) {
		var e AuditEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return out, fmt.Errorf("audit log %s: %w", a.Path, err)
		}
		out = append(out, e)
	}
	return out, nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}
