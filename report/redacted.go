package report

import (
	"path"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// RedactFunc redacts one text; name is the file it is (or comes from), whose suffix
// chooses how (a JSON file by value).
type RedactFunc func(name, text string) string

// Redacted returns copies of meta, findings and the excerpts of opt with every text in
// them redacted by red: what a format renders, redacted before it escapes anything.
// Markdown writes SECRET_KEY as SECRET\_KEY and JUnit & as &amp;, which no rule written
// for the plain text matches any more, so a secret must be gone before it is escaped.
// The caller's values are not changed.
func Redacted(meta Meta, findings []probes.Finding, opt Options, red RedactFunc) (Meta, []probes.Finding, Options) {
	if red == nil {
		return meta, findings, opt
	}
	const name = "report.txt"
	meta.Source, meta.Cluster, meta.Context, meta.Reached = red(name, meta.Source), red(name, meta.Cluster), red(name, meta.Context), red(name, meta.Reached)
	out := make([]probes.Finding, len(findings))
	for i, f := range findings {
		f.Summary = red(name, f.Summary)
		f.Details = redactAll(red, name, f.Details)
		f.Evidence = redactAll(red, name, f.Evidence)
		f.Fix = redactFix(red, f.Fix)
		out[i] = f
	}
	if opt.Excerpts != nil {
		ex := make(map[string]string, len(opt.Excerpts))
		for p, t := range opt.Excerpts {
			ex[p] = red(path.Base(p), t)
		}
		opt.Excerpts = ex
	}
	return meta, out, opt
}

func redactAll(red RedactFunc, name string, in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = red(name, s)
	}
	return out
}

// redactFix redacts a copy of a fix: what it runs and says, and its choices.
func redactFix(red RedactFunc, fx *probes.Fix) *probes.Fix {
	if fx == nil {
		return nil
	}
	const name = "fix.txt"
	c := *fx
	c.Title, c.Impact, c.Precheck = red(name, c.Title), red(name, c.Impact), red(name, c.Precheck) // VerifyStatus is a typed status, never free text
	c.Commands = redactAll(red, name, c.Commands)
	c.Notes = redactAll(red, name, c.Notes)
	if c.Params != nil {
		p := make(map[string]any, len(c.Params))
		for k, v := range c.Params {
			if s, ok := v.(string); ok {
				// Asked as key=value, so a value under a secret-named key goes too.
				if r := red(name, k+"="+s); strings.HasPrefix(r, k+"=") {
					v = r[len(k)+1:]
				} else {
					v = red(name, s)
				}
			}
			p[k] = v
		}
		c.Params = p
	}
	if c.Choices != nil {
		ch := make([]*probes.Fix, len(c.Choices))
		for i, x := range c.Choices {
			ch[i] = redactFix(red, x)
		}
		c.Choices = ch
	}
	return &c
}
