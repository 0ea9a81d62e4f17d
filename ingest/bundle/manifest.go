package bundle

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// maxErrText bounds an error text copied into the manifest; the ".err" file has it all.
const maxErrText = 2000

// manifest assembles manifest.json from what was written.
func (ew *entryWriter) manifest(opts Options, prior *Manifest) *Manifest {
	m := &Manifest{FormatVersion: FormatVersion, Tool: opts.Tool, Version: opts.Version,
		Redacted: ew.red != nil || prior != nil && prior.Redacted, Nodes: map[string]Node{}}
	if !opts.Time.IsZero() {
		m.Time = opts.Time.UTC().Truncate(time.Second)
	}
	for n, info := range opts.Nodes {
		if ew.red != nil {
			// The caller's words reach the manifest too: an address with credentials
			// (https://user:password@host), an error quoting a command line.
			info.Address = ew.red.String(evidence.BundleManifest, info.Address)
			info.Error = ew.red.String(evidence.BundleManifest, info.Error)
		}
		m.Nodes[n] = info
	}
	byPath := map[string]int{}
	for _, it := range ew.items {
		if node, ok := nodeOf(it.Path); ok {
			if _, known := m.Nodes[node]; !known {
				m.Nodes[node] = Node{}
			}
		}
		if prior != nil && it.Status == StatusOK {
			if old, ok := prior.Item(it.Path); ok && old.Status == StatusTruncated {
				it.Status, it.OriginalSize = old.Status, old.OriginalSize
			}
		}
		byPath[it.Path] = len(m.Items)
		m.Items = append(m.Items, it)
	}
	// A ".err" companion marks its evidence file as failed, present (partial output) or
	// not; nodes/<node>/sweep.err says the whole node could not be reached.
	for errPath, text := range ew.errText {
		text = firstLines(text, maxErrText)
		if node, ok := nodeOf(errPath); ok && path.Base(errPath) == evidence.SweepErr {
			if n := m.Nodes[node]; n.Error == "" {
				n.Error = text
				m.Nodes[node] = n
			}
			continue
		}
		p := strings.TrimSuffix(errPath, evidence.ErrSuffix)
		if i, ok := byPath[p]; ok {
			m.Items[i].Status, m.Items[i].Error = StatusError, text
			continue
		}
		m.Items = append(m.Items, Item{Path: p, Status: StatusError, Error: text})
	}
	sort.Slice(m.Items, func(i, j int) bool { return m.Items[i].Path < m.Items[j].Path })
	if m.Items == nil {
		m.Items = []Item{}
	}
	all := map[string]map[string]int{}
	for _, counts := range []map[string]map[string]int{ew.intake, ew.counts} {
		for file, rules := range counts {
			if all[file] == nil {
				all[file] = map[string]int{}
			}
			for rule, n := range rules {
				all[file][rule] += n
			}
		}
	}
	m.Redactions = mergeRedactions(all, prior)
	return m
}

func mergeRedactions(counts map[string]map[string]int, prior *Manifest) []Redaction {
	sum := map[[2]string]int{}
	if prior != nil {
		for _, r := range prior.Redactions {
			sum[[2]string{r.File, r.Rule}] += r.Count
		}
	}
	for file, rules := range counts {
		for rule, n := range rules {
			sum[[2]string{file, rule}] += n
		}
	}
	out := make([]Redaction, 0, len(sum))
	for k, n := range sum {
		out = append(out, Redaction{File: k[0], Rule: k[1], Count: n})
	}
	sortRedactions(out)
	return out
}

// nodeOf returns the node of a path under nodes/<node>/.
func nodeOf(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "nodes/")
	if !ok {
		return "", false
	}
	node, _, ok := strings.Cut(rest, "/")
	return node, ok && node != ""
}

// newGzip makes the gzip writer: klauspost/compress at its default level (about five
// times the speed of compress/gzip for 8% more bytes), and a header with no name and
// mtime 0, so the bytes depend on the content alone.
func newGzip(w io.Writer) *gzip.Writer {
	zw, _ := gzip.NewWriterLevel(w, gzip.DefaultCompression) // the level is valid
	zw.ModTime = time.Unix(0, 0)                             // this writer would encode the zero time.Time as a date
	return zw
}

// atomicWrite writes dst through fn into a temporary file in the same directory, syncs
// it and renames it into place, so readers only ever see a complete file under dst.
// On any error the temporary file is removed.
func atomicWrite(dst string, fn func(w io.Writer) error) (err error) {
	dir := filepath.Dir(dst)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return fmt.Errorf("creating a temporary file in %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", tmp.Name(), dst, err)
	}
	// Make the rename itself durable; not every platform can sync a directory.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
