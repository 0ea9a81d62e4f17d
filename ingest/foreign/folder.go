package foreign

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
)

// openFolder lists a folder (an unpacked collector output, or a case folder holding
// several bundles) through an os.Root, so no path and no link leads out of it; links
// and special files are not listed.
func openFolder(dir string, lim bundle.Limits) (*source, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	defer root.Close()
	c := newChecker(lim)
	var es []entry
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." || d.IsDir() {
			// A folder deeper than an archive may be is skipped, not refused: an unpacked
			// zip under a case folder nests deeper than the zip did.
			if p != "." && strings.Count(p, "/")+1 >= lim.MaxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // a link or a device: not read
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		name, err := c.clean(p)
		if err != nil {
			return err
		}
		if err := c.add(name, info.Size()); err != nil {
			return err
		}
		es = append(es, entry{name, info.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	load := func(ctx context.Context, want map[string]bool) (map[string][]byte, error) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", dir, err)
		}
		defer root.Close()
		out := map[string][]byte{}
		for name := range want {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			f, err := root.Open(filepath.FromSlash(name))
			if err != nil {
				return nil, fmt.Errorf("reading %s in %s: %w", name, dir, err)
			}
			st, err := f.Stat()
			if err != nil || !st.Mode().IsRegular() {
				f.Close()
				return nil, fmt.Errorf("reading %s in %s: not a regular file", name, dir)
			}
			b, err := readCapped(f, name, st.Size(), lim)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("reading %s in %s: %w", name, dir, err)
			}
			out[name] = b
		}
		return out, nil
	}
	return &source{label: dir, entries: sortEntries(es), load: load, isFolder: true}, nil
}
