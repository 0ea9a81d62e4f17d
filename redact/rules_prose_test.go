package redact

import (
	"strings"
	"testing"
)

// TestBasicProseIsNotASecret: the tool's own refusal says "Basic authentication over plain
// HTTP"; that is prose, and the credential after "Basic" in a header still goes.
func TestBasicProseIsNotASecret(t *testing.T) {
	r := Default()
	prose := "refusing Basic authentication over plain HTTP"
	if got := r.String("report.txt", prose); got != prose {
		t.Errorf("prose redacted: %q", got)
	}
	cred := "curl -H 'X: Basic dXNlcjpwYXNzd29yZA==' https://node"
	if got := r.String("report.txt", cred); strings.Contains(got, "dXNlcjpwYXNzd29yZA") {
		t.Errorf("credential kept: %q", got)
	}
}
