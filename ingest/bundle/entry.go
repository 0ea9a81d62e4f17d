package bundle

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// entryType refuses everything but regular files and directories.
func entryType(hdr *tar.Header) error {
	what := ""
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeDir, '\x00': // '\x00': regular file, pre-POSIX
		for k := range hdr.PAXRecords {
			if strings.HasPrefix(k, "GNU.sparse.") {
				return &VerifyError{Kind: Unsafe, Entry: hdr.Name, Detail: "sparse files are not allowed"}
			}
		}
		return nil
	case tar.TypeGNUSparse:
		what = "sparse files are not allowed"
	case tar.TypeSymlink:
		what = "symlinks are not allowed"
	case tar.TypeLink:
		what = "hard links are not allowed"
	case tar.TypeChar, tar.TypeBlock:
		what = "device files are not allowed"
	case tar.TypeFifo:
		what = "named pipes are not allowed"
	default:
		what = fmt.Sprintf("entry type %q is not allowed", hdr.Typeflag)
	}
	return &VerifyError{Kind: Unsafe, Entry: hdr.Name, Detail: what}
}

// cleanEntry checks an entry name and returns it cleaned; "" is the root.
func cleanEntry(name string) (string, error) {
	bad := func(why string) error { return &VerifyError{Kind: Unsafe, Entry: name, Detail: why} }
	switch {
	case name == "":
		return "", bad("empty name")
	case strings.HasPrefix(name, "/") || len(name) >= 2 && name[1] == ':':
		return "", bad("absolute path")
	case strings.Contains(name, `\`):
		return "", bad("backslash in the name (a Windows path separator)")
	}
	n := strings.TrimSuffix(name, "/")
	for _, elem := range strings.Split(n, "/") {
		if elem == ".." {
			return "", bad("escapes the bundle root")
		}
	}
	n = path.Clean(n)
	if n == "." {
		return "", nil
	}
	if !fs.ValidPath(n) {
		return "", bad("not a valid path")
	}
	return n, nil
}

// streamErr turns a gzip or tar error into the problem it shows.
func streamErr(err error, where string) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &VerifyError{Kind: Truncated, Detail: "the stream ends early, " + where}
	case errors.Is(err, gzip.ErrChecksum):
		return &VerifyError{Kind: Corrupt, Detail: "gzip checksum mismatch " + where}
	case errors.Is(err, gzip.ErrHeader):
		return &VerifyError{Kind: Corrupt, Detail: "not a gzip file"}
	case errors.Is(err, tar.ErrHeader):
		return &VerifyError{Kind: Corrupt, Detail: "not a tar stream " + where}
	}
	return &VerifyError{Kind: Corrupt, Detail: fmt.Sprintf("%v %s", err, where)}
}
