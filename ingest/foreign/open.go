package foreign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// OpenEvidence opens what analyze is given: our own evidence folder or snapshot bundle
// (bundle.OpenEvidence), else another collector's bundle, or a case folder of several.
// The Result is nil for our own formats; for a foreign input, source names each
// collector and version recognized.
func OpenEvidence(ctx context.Context, p string, opt Options) (evidence.Evidence, string, io.Closer, *Result, error) {
	own, err := isOwn(p)
	if err != nil {
		return evidence.Evidence{}, "", nil, nil, err
	}
	red := opt.Redact
	if red == nil {
		red = redact.Default()
	}
	if own {
		ev, source, closer, err := bundle.OpenEvidenceRedacted(ctx, p, red)
		var ve *bundle.VerifyError
		if err == nil || !errors.As(err, &ve) || ve.Kind != bundle.BadManifest || !strings.Contains(ve.Detail, "no manifest.json") {
			return ev, source, closer, nil, err
		}
		// a tar.gz without our manifest: someone else's tarball
	}
	res, err := Open(ctx, []string{p}, opt)
	var none *NotRecognizedError
	if errors.As(err, &none) && !own {
		if st, serr := os.Stat(p); serr == nil && st.IsDir() {
			// a folder in no collector's layout is an evidence folder assembled by hand
			// (perhaps still empty): read as ours, its probes skip what it lacks
			ev, source, closer, err := bundle.OpenEvidenceRedacted(ctx, p, red)
			return ev, source, closer, nil, err
		}
	}
	if err != nil {
		return evidence.Evidence{}, "", nil, nil, fmt.Errorf("opening evidence %s: %w", p, err)
	}
	// Another collector's files are evidence like ours: redacted as they are read.
	return evidence.Evidence{FS: red.FS(res.FS())}, res.Describe(), io.NopCloser(nil), res, nil
}

// isOwn tells our formats: a folder with nodes/, cluster/ or manifest.json at its top,
// or a gzip file (our bundle, or a foreign tarball: the manifest tells, at open).
func isOwn(p string) (bool, error) {
	st, err := os.Stat(p)
	if err != nil {
		return false, fmt.Errorf("opening evidence: %w", err)
	}
	if st.IsDir() {
		for _, top := range []string{"nodes", "cluster", "manifest.json"} {
			if _, err := os.Stat(filepath.Join(p, top)); err == nil {
				return true, nil
			} else if !errors.Is(err, fs.ErrNotExist) {
				return false, fmt.Errorf("opening evidence: %w", err)
			}
		}
		return false, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return false, fmt.Errorf("opening evidence: %w", err)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return kind(head[:n]) == "gzip", nil
}
