package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/klauspost/compress/gzip"
)

// DiffResult lists the evidence paths that differ between two bundles, each sorted.
// A path counts as changed when its content (sha256), status or error text differs.
// findings.json, report.md, audit.jsonl and the manifest are not evidence and are left
// out: the caller compares findings itself.
type DiffResult struct {
	Added, Removed, Changed []string
}

// Empty reports whether the evidence is the same.
func (d DiffResult) Empty() bool { return len(d.Added)+len(d.Removed)+len(d.Changed) == 0 }

// Diff compares the evidence of bundle a (before) with bundle b (after).
func Diff(a, b *Bundle) DiffResult {
	av, bv := evidenceItems(a.Manifest()), evidenceItems(b.Manifest())
	var d DiffResult
	for p, ai := range av {
		bi, ok := bv[p]
		switch {
		case !ok:
			d.Removed = append(d.Removed, p)
		case ai.SHA256 != bi.SHA256 || ai.Status != bi.Status || ai.Error != bi.Error:
			d.Changed = append(d.Changed, p)
		}
	}
	for p := range bv {
		if _, ok := av[p]; !ok {
			d.Added = append(d.Added, p)
		}
	}
	sort.Strings(d.Added)
	sort.Strings(d.Removed)
	sort.Strings(d.Changed)
	return d
}

func evidenceItems(m *Manifest) map[string]Item {
	out := map[string]Item{}
	for _, it := range m.Items {
		if !nonEvidence(it.Path) {
			out[it.Path] = it
		}
	}
	return out
}

// Redact re-redacts the bundle at in into out (which may be the same path) with r (nil:
// NewDefaultRedactor), for example with custom rules, or a bundle written with
// redaction off. The input is verified first; the output is written atomically. Tool,
// version, time and nodes carry over; the redaction summary adds the new counts to the
// old ones (the default rules never count a value twice).
func Redact(ctx context.Context, in, out string, r *Redactor) (*Manifest, error) {
	b, err := OpenContext(ctx, in)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if r == nil {
		r = NewDefaultRedactor()
	}
	// Unpack next to the output: the temp dir may be a small tmpfs, and out's directory
	// must have room for the result anyway.
	dir, err := os.MkdirTemp(filepath.Dir(out), ".wintroubleshoot-redact-*")
	if err != nil {
		return nil, fmt.Errorf("redacting %s: making a work directory: %w", in, err)
	}
	defer os.RemoveAll(dir)
	if err := b.extract(ctx, dir); err != nil {
		return nil, fmt.Errorf("redacting %s: %w", in, err)
	}
	m := b.Manifest()
	nodes := map[string]Node{}
	for name, n := range m.Nodes {
		var buf bytes.Buffer
		if _, _, err := r.Filter(&buf, bytes.NewReader([]byte(n.Error)), "node-error.txt"); err == nil {
			n.Error = buf.String()
		}
		nodes[name] = n
	}
	opts := Options{Tool: m.Tool, Version: m.Version, Time: m.Time, Nodes: nodes, Redact: r}
	return write(ctx, out, DirSource(dir), opts, m)
}

// extract writes every file of the bundle under dir in one pass, checking each against
// the checksum verified when the bundle was opened.
func (b *Bundle) extract(ctx context.Context, dir string) error {
	f, err := os.Open(b.path)
	if err != nil {
		return fmt.Errorf("reopening the bundle: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 256<<10))
	if err != nil {
		return streamErr(err, "in the gzip header")
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && hdr == nil {
			return streamErr(err, "while unpacking")
		}
		name, _ := cleanEntry(hdr.Name)
		e, ok := b.files[name]
		if !ok || hdr.Typeflag == tar.TypeDir {
			continue // directories are made as needed; the manifest is rewritten
		}
		if e.refused != nil {
			return fmt.Errorf("unpacking: %w", e.refused)
		}
		if err := extractOne(ctx, tr, filepath.Join(dir, filepath.FromSlash(name)), e); err != nil {
			return err
		}
	}
}

func extractOne(ctx context.Context, r io.Reader, dst string, e *entry) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("unpacking %s: %w", e.name, err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("unpacking %s: %w", e.name, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), ctxReader{ctx, r})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unpacking %s: %w", e.name, err)
	}
	if n != e.size || hex.EncodeToString(h.Sum(nil)) != e.sha {
		return &VerifyError{Kind: Tampered, Entry: e.name, Detail: "checksum mismatch (changed since the bundle was opened)"}
	}
	return nil
}
