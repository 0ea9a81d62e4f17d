package main

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// maxFlagFile caps what a file named by a flag may hold: a CA bundle or a private key is
// kilobytes; a mistyped path to a disk image must not be read whole.
const maxFlagFile = 4 << 20

// readFlagFile reads a file named by a flag (~ expanded), capped at maxFlagFile.
func readFlagFile(path string) ([]byte, error) {
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

// checkPEMCerts says whether a file holds at least one PEM certificate, as the WinRM
// transport will need when it dials: found now, it is one usage error instead of one
// TLS failure per node.
func checkPEMCerts(path string) error {
	b, err := readFlagFile(path)
	if err != nil {
		return err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return fmt.Errorf("%s holds no PEM certificate (want -----BEGIN CERTIFICATE----- blocks)", path)
	}
	return nil
}

// checkSSHKey says whether a file is a private key the SSH transport can use. A key
// protected by a passphrase is accepted here: the transport says what it needs.
func checkSSHKey(path string) error {
	b, err := readFlagFile(path)
	if err != nil {
		return err
	}
	if _, err := gossh.ParsePrivateKey(b); err != nil {
		var pp *gossh.PassphraseMissingError
		if errors.As(err, &pp) {
			return nil
		}
		return fmt.Errorf("%s is not a private key SSH can use: %w", path, err)
	}
	return nil
}
