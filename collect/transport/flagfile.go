package transport

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxFlagFile caps what a file named by a flag may hold: a CA bundle or a private key is
// kilobytes; a mistyped path to a disk image must not be read whole.
const maxFlagFile = 4 << 20

// ReadFlagFile reads a file named by a flag (~ expanded), capped at 4 MiB.
func ReadFlagFile(path string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFlagFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > maxFlagFile {
		return nil, fmt.Errorf("%s is larger than %d MiB: not a certificate or key file", path, maxFlagFile>>20)
	}
	return b, nil
}
