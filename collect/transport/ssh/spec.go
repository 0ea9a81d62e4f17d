package ssh

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
	gossh "golang.org/x/crypto/ssh"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// Options are SSH's own flags.
type Options struct {
	KeyFile, KnownHosts    string
	UseAgent, InsecureHost bool
}

// Bind adds SSH's flags.
func (o *Options) Bind(f *pflag.FlagSet) {
	f.StringVar(&o.KeyFile, "ssh-key", "", "private key file for SSH")
	f.BoolVar(&o.UseAgent, "ssh-agent", false, "authenticate SSH with the keys in ssh-agent (SSH_AUTH_SOCK)")
	f.StringVar(&o.KnownHosts, "ssh-known-hosts", "", "known_hosts file to verify node host keys (default ~/.ssh/known_hosts)")
	f.BoolVar(&o.InsecureHost, "ssh-insecure-ignore-host-key", false, "do not verify SSH host keys (insecure; prints a warning)")
}

// Validate checks the key file before anything connects. A key protected by a passphrase
// is accepted here: the transport says what it needs.
func (o *Options) Validate() error {
	if o.KeyFile == "" {
		return nil
	}
	b, err := transport.ReadFlagFile(o.KeyFile)
	if err == nil {
		if _, perr := gossh.ParsePrivateKey(b); perr != nil {
			var pp *gossh.PassphraseMissingError
			if !errors.As(perr, &pp) {
				err = fmt.Errorf("%s is not a private key SSH can use: %w", o.KeyFile, perr)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("--ssh-key: %w", err)
	}
	return nil
}

// Spec registers Windows OpenSSH (and a Linux worker's sshd): a key, ssh-agent or a password.
func Spec() *transport.Spec {
	o := &Options{}
	return &transport.Spec{
		Kinds: []transport.KindSpec{{Kind: transport.SSH, Port: 22, Use: "22"}},
		Bind:  o.Bind,
		Configure: func(c *transport.Config) {
			c.KeyFile, c.UseAgent, c.KnownHosts, c.InsecureIgnoreHostKey = o.KeyFile, o.UseAgent, o.KnownHosts, o.InsecureHost
		},
		Validate:      o.Validate,
		NeedsPassword: func() bool { return o.KeyFile == "" && !o.UseAgent },
		Dial: func(cfg transport.Config, warn func(string)) (transport.Transport, error) {
			if cfg.InsecureIgnoreHostKey {
				warn("SSH host keys are not verified (--ssh-insecure-ignore-host-key)")
			}
			return New(cfg)
		},
	}
}
