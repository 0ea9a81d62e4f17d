package main

import (
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"io"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// newRunRedactor is the run's one redactor: the default rules plus the --redact-rules
// file. Every exit of the run goes through it (reports in every format, excerpts, the
// screen's copy and pager, the audit log, bundles), and the secrets the run itself uses
// are added to it once they are known (addSecrets).
func newRunRedactor(rulesFile string) (*redact.Redactor, error) {
	rules := redact.DefaultRules()
	if rulesFile != "" {
		custom, err := redact.LoadRules(rulesFile)
		if err != nil {
			return nil, usageErr("--redact-rules: %v", err)
		}
		rules = append(rules, custom...)
	}
	r, err := redact.New(rules)
	if err != nil {
		return nil, usageErr("--redact-rules: %v", err)
	}
	return r, nil
}

// addSecrets makes r replace each secret wherever it appears, in any of its encodings.
// A secret too short to replace everywhere is said on warn: it cannot be promised.
func addSecrets(r *redact.Redactor, secrets []string, warn io.Writer) {
	if r == nil {
		return
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if err := r.AddLiteral(s); err != nil {
			fmt.Fprintf(warn, "warning: a credential in use cannot be redacted from the output: %v\n", err)
		}
	}
}

// kubeSecrets are the credentials the kubeconfig in use carries: a bearer token (or
// the token file's content) and a basic-auth password. They reach the output only by
// accident (an error quoting a request, a log line), and that is what this guards.
func kubeSecrets(flags *genericclioptions.ConfigFlags) []string {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil
	}
	out := []string{cfg.BearerToken, cfg.Password}
	if cfg.BearerTokenFile != "" {
		if b, err := transport.ReadFlagFile(cfg.BearerTokenFile); err == nil {
			out = append(out, string(trimNewline(b)))
		}
	}
	return out
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// screenRedactor is the run's redactor as the screen asks for it (tui.Redactor).
type screenRedactor struct{ r *redact.Redactor }

func (s screenRedactor) Redact(name, text string) string {
	if s.r == nil {
		return text
	}
	return s.r.String(name, text)
}

// safeLine is a message for stderr (a warning, the final error) with the default rules
// applied: errors from client-go and the transport.Registry quote URLs and requests, and a
// kubeconfig server URL may carry user:password.
func safeLine(s string) string {
	return redact.Default().String("stderr.txt", s)
}
