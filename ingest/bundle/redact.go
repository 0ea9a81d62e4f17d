package bundle

import (
	"sort"

	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// The redactor lives in redact, which every exit uses; these names keep the
// bundle's callers compiling. New code should use the redact package directly.
type (
	// Redactor is redact.Redactor.
	Redactor = redact.Redactor
	// Rule is redact.Rule.
	Rule = redact.Rule
)

// Replacement is what every redacted value becomes (redact.Replacement).
const Replacement = redact.Replacement

// Names of structural rules, as redact names them.
const (
	RulePrivateKey = redact.RulePrivateKey
	RuleSecretData = redact.RuleSecretData
)

// NewRedactor is redact.New.
func NewRedactor(rules []Rule) (*Redactor, error) { return redact.New(rules) }

// NewDefaultRedactor is redact.Default.
func NewDefaultRedactor() *Redactor { return redact.Default() }

// DefaultRules is redact.DefaultRules.
func DefaultRules() []Rule { return redact.DefaultRules() }

// LoadRules is redact.LoadRules.
func LoadRules(path string) ([]Rule, error) { return redact.LoadRules(path) }

func sortRedactions(rs []Redaction) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].File != rs[j].File {
			return rs[i].File < rs[j].File
		}
		return rs[i].Rule < rs[j].Rule
	})
}
