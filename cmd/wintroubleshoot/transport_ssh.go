package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/ssh"
)

// sshTransport is Windows OpenSSH: a key, ssh-agent or a password.
func sshTransport() *transportSpec {
	var key, knownHosts string
	var agent, insecure bool
	return &transportSpec{
		kinds: []kindSpec{{transport.SSH, 22, "22"}},
		flags: func(f *pflag.FlagSet) {
			f.StringVar(&key, "ssh-key", "", "private key file for SSH")
			f.BoolVar(&agent, "ssh-agent", false, "authenticate SSH with the keys in ssh-agent (SSH_AUTH_SOCK)")
			f.StringVar(&knownHosts, "ssh-known-hosts", "", "known_hosts file to verify node host keys (default ~/.ssh/known_hosts)")
			f.BoolVar(&insecure, "ssh-insecure-ignore-host-key", false, "do not verify SSH host keys (insecure; prints a warning)")
		},
		configure: func(c *transport.Config) {
			c.KeyFile, c.UseAgent, c.KnownHosts, c.InsecureIgnoreHostKey = key, agent, knownHosts, insecure
		},
		validate: func() error {
			if key != "" {
				if err := checkSSHKey(key); err != nil {
					return fmt.Errorf("--ssh-key: %w", err)
				}
			}
			return nil
		},
		needsPassword: func() bool { return key == "" && !agent },
		dial: func(cfg transport.Config, warn func(string)) (transport.Transport, error) {
			if cfg.InsecureIgnoreHostKey {
				warn("SSH host keys are not verified (--ssh-insecure-ignore-host-key)")
			}
			return ssh.New(cfg)
		},
	}
}
