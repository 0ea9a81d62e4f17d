// Package redact removes secrets from evidence as it enters the tool (a sweep, a bundle,
// a folder, a paste), so every output reads redacted text: bundles, reports in every
// format, Markdown excerpts, the TUI's copy and pager, the audit log. It is a leaf: the
// standard library, golang.org/x/text (UTF-16 evidence), sigs.k8s.io/yaml (rule files)
// and gitleaks' rule set (github.com/zricethezav/gitleaks/v8/config) only, so every exit
// can use it.
//
// Two ways of looking at a file, chosen by its name:
//
//   - JSON (".json", ".jsonl") is decoded and redacted by value: every string value goes
//     through the text rules, values of secret-like keys (password, token, auth, ...) are
//     replaced whole, as are env entries {name: DB_PASSWORD, value: X}, the argument after
//     --password/-Password/--token in string arrays (args, command), and Kubernetes Secret
//     data. Only the replaced string literals change: the rest of the file keeps its
//     bytes, so PowerShell 5.1's ConvertTo-Json layout survives and a file without
//     secrets is byte-identical. JSON that does not decode is redacted as text.
//   - Everything else is text, redacted line by line by regex rules (DefaultRules plus
//     custom ones), then by gitleaks' default rules (gitleaks.go: some two hundred, each
//     behind its keywords, found in one Aho-Corasick pass), PEM private key blocks, and a
//     scanner for Secret JSON embedded in logs; then a YAML pass for what a secret key on
//     an earlier line makes secret (stringData, a Secret's data, password: |, a mapping
//     under credentials:; yamlsecrets.go). PEM keys whose lines carry a log prefix, and
//     base64-encoded ones wrapped over lines, are followed line by line (pemlines.go).
//     Replacing keeps structure: escapes of a
//     JSON document inside a log line stay whole, and a YAML or TOML plain value becomes
//     '***REDACTED***', quoted (structure.go).
//
// Literal secrets the tool itself knows (the node password it used) are replaced
// everywhere, in every form they are written in (AddLiteral).
//
// A Redactor counts what it replaced per file and rule; values are never recorded.
package redact

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Redactor replaces secrets. It is safe for concurrent use.
type Redactor struct {
	rules   []compiledRule
	scans   []scan // the distinct finders, each with the rules it serves
	anyLine bool   // a rule without finders: every line must be asked
	custom  bool   // a rule not built in (LoadRules): no shortcut may skip it
	leaks   *leaks // gitleaks' default rules, always on

	mu       sync.Mutex
	literals []literal
	counts   map[[2]string]int // {file, rule} -> replaced values
}

// Count is how many values one rule replaced in one file.
type Count struct {
	File  string `json:"file"`
	Rule  string `json:"rule"`
	Count int    `json:"count"`
}

// New compiles rules. Pass DefaultRules() (plus custom rules) to get the built-in
// protection; the structural rules (private keys, Secret data, secret-like JSON keys,
// env entries, flag arguments, literals) are always on.
func New(rules []Rule) (*Redactor, error) {
	lk, err := sharedLeaks()
	if err != nil {
		return nil, err
	}
	r := &Redactor{counts: map[[2]string]int{}, leaks: lk}
	for _, rule := range rules {
		c, err := compileRule(rule)
		if err != nil {
			return nil, err
		}
		r.rules = append(r.rules, c)
		r.anyLine = r.anyLine || len(c.find) == 0
		r.custom = r.custom || rule.find == nil
	}
	if len(r.rules) > 64 {
		return nil, fmt.Errorf("%d redaction rules; at most 64 are supported", len(r.rules))
	}
	at := map[string]int{}
	for i, c := range r.rules {
		for _, f := range c.find {
			j, ok := at[f.key]
			if !ok {
				j = len(r.scans)
				at[f.key] = j
				r.scans = append(r.scans, scan{find: f.find, pem: f.key == literalFinder(pemKey).key})
			}
			r.scans[j].mask |= 1 << i
		}
	}
	return r, nil
}

// Default is a Redactor with DefaultRules.
func Default() *Redactor {
	r, err := New(DefaultRules())
	if err != nil {
		panic("redact: the default rules do not compile: " + err.Error()) // a test guards this
	}
	return r
}

// IsJSON reports whether a file of this name is redacted as JSON, by value.
func IsJSON(name string) bool {
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")
}

// Copy redacts src into dst, recording what it replaced under the name file (whose
// suffix chooses JSON or text). It returns the bytes written.
func (r *Redactor) Copy(dst io.Writer, src io.Reader, file string) (int64, error) {
	n, counts, err := r.Filter(dst, src, file)
	r.Record(file, counts)
	return n, err
}

// Filter is Copy without recording: it returns the counts of this one pass, for a
// caller that may run a file twice (sizing it first) and records once (Record).
func (r *Redactor) Filter(dst io.Writer, src io.Reader, file string) (int64, map[string]int, error) {
	counts := map[string]int{}
	if IsJSON(file) {
		n, err := r.copyJSON(dst, src, counts)
		if err != nil {
			return n, counts, fmt.Errorf("redacting %s: %w", file, err)
		}
		return n, counts, nil
	}
	n, err := r.copyText(dst, src, counts)
	if err != nil {
		return n, counts, fmt.Errorf("redacting %s: %w", file, err)
	}
	return n, counts, nil
}

// Bytes returns b redacted as the file name (JSON or text), recording the counts. b is
// returned itself when nothing was replaced.
func (r *Redactor) Bytes(name string, b []byte) []byte {
	out, counts := r.bytesOf(name, b)
	r.Record(name, counts)
	return out
}

// bytesOf is Bytes without recording.
func (r *Redactor) bytesOf(name string, b []byte) ([]byte, map[string]int) {
	counts := map[string]int{}
	var out []byte
	if IsJSON(name) {
		out = r.redactJSON(b, counts)
	} else {
		var buf bytes.Buffer
		r.copyTextSized(&buf, bytes.NewReader(b), counts, bufferFor(len(b))) // writes to memory: no error
		out = buf.Bytes()
	}
	if len(counts) == 0 {
		return b, counts
	}
	return out, counts
}

// String is Bytes for text already in a string: a report line, a cluster address, an
// error message.
func (r *Redactor) String(name, s string) string {
	return string(r.Bytes(name, []byte(s)))
}

// Writer redacts what is written to it into w, as the file name: text streams line by
// line (a line is held until its newline or Close); JSON is held until Close, then
// redacted by value. Close flushes; it does not close w. Counts are recorded on Close.
func (r *Redactor) Writer(w io.Writer, name string) io.WriteCloser {
	counts := map[string]int{}
	if IsJSON(name) {
		return &jsonWriter{r: r, w: w, name: name, counts: counts}
	}
	ys := newYAMLSecrets(w, counts)
	lf := r.newLineFilter(ys, counts)
	return &textWriter{r: r, name: name, counts: counts, lf: lf, ys: ys, sj: newSecretJSON(lf, counts, true)}
}

type textWriter struct {
	r      *Redactor
	name   string
	counts map[string]int
	lf     *lineFilter
	ys     *yamlSecrets
	sj     *secretJSON
	closed bool
}

func (t *textWriter) Write(p []byte) (int, error) {
	if t.closed {
		return 0, fmt.Errorf("redacting %s: write after Close", t.name)
	}
	return t.sj.Write(p)
}

func (t *textWriter) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	err := t.sj.Close()
	if err2 := t.lf.Close(); err == nil {
		err = err2
	}
	if err2 := t.ys.Close(); err == nil {
		err = err2
	}
	t.r.Record(t.name, t.counts)
	return err
}

// jsonWriter holds JSON until Close: it can only be redacted by value whole.
type jsonWriter struct {
	r      *Redactor
	w      io.Writer
	name   string
	counts map[string]int
	buf    bytes.Buffer
	closed bool
}

func (j *jsonWriter) Write(p []byte) (int, error) {
	if j.closed {
		return 0, fmt.Errorf("redacting %s: write after Close", j.name)
	}
	return j.buf.Write(p)
}

func (j *jsonWriter) Close() error {
	if j.closed {
		return nil
	}
	j.closed = true
	_, err := j.w.Write(j.r.Bytes(j.name, j.buf.Bytes()))
	return err
}

// copyText runs the text pipeline: the embedded-Secret scanner, then the line rules.
// UTF-16 text (Windows PowerShell's Out-File, with a byte-order mark or without) is
// redacted as UTF-8 and written back in its own encoding.
func (r *Redactor) copyText(dst io.Writer, src io.Reader, counts map[string]int) (int64, error) {
	return r.copyTextSized(dst, src, counts, streamBuffer)
}

// streamBuffer is the buffer a stream of unknown size is read through.
const streamBuffer = 64 << 10

// bufferFor is the buffer for redacting n bytes held in memory: no larger than they are
// (at least the 1024 bytes the encoding sniff peeks at). The report redacts every string
// of every finding one by one; a 64 KiB buffer, zeroed, for each was most of --report's
// allocation and a fifth of its CPU.
func bufferFor(n int) int { return min(max(n+1, 1024), streamBuffer) }

// copyTextSized is copyText reading through buffers of size bytes.
func (r *Redactor) copyTextSized(dst io.Writer, src io.Reader, counts map[string]int, size int) (int64, error) {
	br := bufio.NewReaderSize(src, size)
	head, _ := br.Peek(1024)
	form, ok := sniffUTF16(head)
	if !ok {
		return r.copyUTF8(dst, br, counts, size)
	}
	cw := &countWriter{w: dst}
	enc := unicode.UTF16(form.order, unicode.IgnoreBOM).NewEncoder()
	if form.bom {
		enc = unicode.UTF16(form.order, unicode.UseBOM).NewEncoder()
	}
	tw := transform.NewWriter(cw, enc)
	_, err := r.copyUTF8(tw, transform.NewReader(br, form.encoding().NewDecoder()), counts, size)
	if cerr := tw.Close(); err == nil {
		err = cerr
	}
	return cw.n, err
}

func (r *Redactor) copyUTF8(dst io.Writer, src io.Reader, counts map[string]int, size int) (int64, error) {
	cw := &countWriter{w: dst}
	ys := newYAMLSecrets(cw, counts)
	lf := r.newLineFilter(ys, counts)
	sj := newSecretJSON(lf, counts, true)
	// Hide WriterTo: a bytes.Reader would hand over the whole file in one Write.
	buf := make([]byte, size)
	if _, err := io.CopyBuffer(sj, struct{ io.Reader }{src}, buf); err != nil {
		return cw.n, err
	}
	if err := sj.Close(); err != nil {
		return cw.n, err
	}
	if err := lf.Close(); err != nil {
		return cw.n, err
	}
	return cw.n, ys.Close()
}

// Record adds counts of one file to the summary.
func (r *Redactor) Record(file string, counts map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for rule, n := range counts {
		if n > 0 {
			r.counts[[2]string{file, rule}] += n
		}
	}
}

// Counts lists what was replaced so far, per file and rule, sorted.
func (r *Redactor) Counts() []Count {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Count, 0, len(r.counts))
	for k, n := range r.counts {
		out = append(out, Count{File: k[0], Rule: k[1], Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// Total is how many values were replaced so far.
func (r *Redactor) Total() int {
	n := 0
	for _, c := range r.Counts() {
		n += c.Count
	}
	return n
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
