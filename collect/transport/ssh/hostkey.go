package ssh

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// hostKeyCheck verifies the node's host key against known_hosts and remembers why it
// refused one, since x/crypto only hands back a flattened handshake error.
type hostKeyCheck struct {
	kind       transport.Kind
	addr, host string
	port       int
	shown      string // known_hosts as written in hints ("~/.ssh/known_hosts" by default)
	mkdir      string // "mkdir -p -m 700 DIR && " when known_hosts' folder does not exist yet
	db         gossh.HostKeyCallback
	algorithms []string // host key algorithms known_hosts has for this host; nil: any

	mu      sync.Mutex
	failure *transport.Error
	// banner holds what the server sent first (its version line), set before the
	// handshake; nil: unknown.
	banner *bannerConn
}

func newHostKeyCheck(cfg transport.Config, addr string) (*hostKeyCheck, error) {
	h := &hostKeyCheck{kind: cfg.Kind, addr: addr, host: cfg.Host, port: cfg.Port}
	if cfg.InsecureIgnoreHostKey {
		h.db = gossh.InsecureIgnoreHostKey()
		return h, nil
	}
	path, shown := cfg.KnownHosts, cfg.KnownHosts
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("finding ~/.ssh/known_hosts: %w", err)
		}
		path, shown = filepath.Join(home, ".ssh", "known_hosts"), "~/.ssh/known_hosts"
	}
	path = expandHome(path)
	db, err := knownhosts.New(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No file yet: every host is unknown, and the hint's command creates it.
		db = func(string, net.Addr, gossh.PublicKey) error { return &knownhosts.KeyError{} }
	case err != nil:
		return nil, fmt.Errorf("reading known hosts file %s: %w", path, err)
	}
	h.shown, h.db = shellQuote(shown), db
	if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
		// A fresh account has no ~/.ssh, and `>>` does not create folders.
		h.mkdir = "mkdir -p -m 700 " + shellQuote(filepath.Dir(shown)) + " && "
	}
	h.algorithms = knownAlgorithms(db, addr)
	return h, nil
}

// knownAlgorithms puts the host key algorithms known_hosts holds keys of for addr first,
// as OpenSSH does: otherwise a node with a recorded ecdsa key that also has an ed25519
// key would offer the ed25519 one and look like a changed key. The rest follow, so a node
// that lost its recorded key type still gets the loud mismatch rather than a vague
// "no common algorithm".
func knownAlgorithms(db gossh.HostKeyCallback, addr string) []string {
	probe, err := gossh.NewPublicKey(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public())
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if !errors.As(db(addr, &net.TCPAddr{IP: net.IPv4zero}, probe), &ke) || len(ke.Want) == 0 {
		return nil
	}
	var algos []string
	for _, k := range ke.Want {
		switch t := k.Key.Type(); t {
		case gossh.KeyAlgoRSA: // RSA keys sign with SHA-2 on any sshd since 7.2
			algos = append(algos, gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256)
		default:
			algos = append(algos, t)
		}
	}
	for _, a := range gossh.SupportedAlgorithms().HostKeys {
		if !slices.Contains(algos, a) {
			algos = append(algos, a)
		}
	}
	return algos
}

// check is the HostKeyCallback.
func (h *hostKeyCheck) check(hostname string, remote net.Addr, key gossh.PublicKey) error {
	err := h.db(hostname, remote, key)
	if err == nil {
		return nil
	}
	te := h.explain(err, key)
	h.mu.Lock()
	h.failure = te
	h.mu.Unlock()
	return te
}

func (h *hostKeyCheck) failed() *transport.Error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failure
}

// explain turns a known_hosts verdict into an error a person can act on.
func (h *hostKeyCheck) explain(err error, key gossh.PublicKey) *transport.Error {
	fp := gossh.FingerprintSHA256(key)
	version := ""
	if h.banner != nil {
		version = h.banner.version()
	}
	onNode := hintsFor(version).hostKeyCommand(windowsKeyName(key.Type()))
	keyscan := fmt.Sprintf("%sssh-keyscan -p %d %s >> %s", h.mkdir, h.port, h.host, h.shown)
	fail := func(err error, hint string) *transport.Error {
		return &transport.Error{Kind: h.kind, Addr: h.addr, Op: "verify host key", Err: err, Hint: hint}
	}
	var ke *knownhosts.KeyError
	var re *knownhosts.RevokedError
	switch {
	case errors.As(err, &re):
		return fail(fmt.Errorf("the node's %s key %s is marked @revoked (%s:%d)", key.Type(), fp, re.Revoked.Filename, re.Revoked.Line),
			"the key was revoked on purpose: do not connect until the node has a new host key")
	case errors.As(err, &ke) && len(ke.Want) == 0:
		return fail(fmt.Errorf("unknown host: %s is not in %s; it offered %s key %s", knownhosts.Normalize(h.addr), h.shown, key.Type(), fp),
			fmt.Sprintf("if %s is the node's key, as shown on the node by: %s, add it with: %s", fp, onNode, keyscan))
	case errors.As(err, &ke):
		w := ke.Want[0]
		return fail(fmt.Errorf("HOST KEY MISMATCH: the node offered %s key %s, but %s:%d records %s key %s for %s; "+
			"the node was reinstalled, or someone is intercepting the connection",
			key.Type(), fp, w.Filename, w.Line, w.Key.Type(), gossh.FingerprintSHA256(w.Key), knownhosts.Normalize(h.addr)),
			fmt.Sprintf("do not connect until you know why; if the node was rebuilt, compare %s with the output of: %s on the node, then replace the old key: ssh-keygen -R %s -f %s && %s",
				fp, onNode, shellQuote(knownhosts.Normalize(h.addr)), h.shown, keyscan))
	}
	return fail(fmt.Errorf("checking the host key: %w", err), "")
}

// windowsKeyName maps a key type to the name OpenSSH gives its host key file (Windows
// and Linux alike: ssh_host_ed25519_key).
func windowsKeyName(keyType string) string {
	switch {
	case keyType == gossh.KeyAlgoED25519:
		return "ed25519"
	case strings.HasPrefix(keyType, "ecdsa-"):
		return "ecdsa"
	case keyType == gossh.KeyAlgoRSA:
		return "rsa"
	}
	return "*"
}

// shellQuote quotes s for a POSIX shell when it needs it; a leading ~/ stays unquoted
// so the shell still expands it.
func shellQuote(s string) string {
	unsafe := func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./~-", r))
	}
	if s != "" && !strings.ContainsFunc(s, unsafe) {
		return s
	}
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		return "~/" + shellQuote(rest)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// The transport reaches Linux workers as well as Windows nodes. Hints name the files
// and logs of the system that answered, told apart by sshd's version line: Windows
// OpenSSH announces "OpenSSH_for_Windows_9.5", a Linux sshd "OpenSSH_9.2p1 Debian-2+deb12u3".

// linuxServer says whether an sshd version line is not Windows OpenSSH's.
func linuxServer(version string) bool {
	return strings.HasPrefix(version, "SSH-") && !strings.Contains(version, "for_Windows")
}

// version is the server's SSH version line among the first bytes it sent, "" before it
// sent one.
func (c *bannerConn) version() string {
	c.mu.Lock()
	first := bytes.Clone(c.first)
	c.mu.Unlock()
	for line := range bytes.SplitSeq(first, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("SSH-")) {
			return strings.TrimRight(string(line), "\r")
		}
	}
	return ""
}

// osHints are the node-side commands and paths a hint names.
type osHints struct {
	log, sshdConfig, authorizedKeys, hostKey string
}

// hintsFor is the hint vocabulary of the sshd that sent version ("" unknown: Windows,
// the tool's first subject).
func hintsFor(version string) osHints {
	if linuxServer(version) {
		return osHints{
			log:            "journalctl -u ssh -u sshd -n 20",
			sshdConfig:     "/etc/ssh/sshd_config",
			authorizedKeys: "~USER/.ssh/authorized_keys (for root /root/.ssh/authorized_keys; PermitRootLogin must allow keys)",
			hostKey:        "ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub",
		}
	}
	return osHints{
		log:            "Get-WinEvent -LogName OpenSSH/Operational -MaxEvents 20",
		sshdConfig:     `C:\ProgramData\ssh\sshd_config`,
		authorizedKeys: `C:\Users\USER\.ssh\authorized_keys, or for administrators in C:\ProgramData\ssh\administrators_authorized_keys`,
		hostKey:        `ssh-keygen -lf C:\ProgramData\ssh\ssh_host_%s_key.pub`,
	}
}

// dropHint is what to try when the node closed the connection mid-command.
func (h osHints) dropHint() string {
	return "the node closed the connection mid-command: sshd restarted, the node rebooted or the network dropped; " +
		"rerun, and see " + h.log + " on the node"
}

// hostKeyCommand shows the host key of a type on the node.
func (h osHints) hostKeyCommand(keyName string) string { return fmt.Sprintf(h.hostKey, keyName) }
