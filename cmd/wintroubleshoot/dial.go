package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport/local"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport/ssh"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport/winrm"
)

// dialer opens transports; it warns once on stderr about each insecure option in use.
func dialer(warn io.Writer) func(ctx context.Context, cfg transport.Config) (transport.Transport, error) {
	var tlsOnce, sshOnce sync.Once // the engine dials from many goroutines
	return func(_ context.Context, cfg transport.Config) (transport.Transport, error) {
		switch cfg.Kind {
		case transport.WinRM, transport.WinRMHTTPS:
			if cfg.InsecureSkipTLSVerify {
				tlsOnce.Do(func() {
					fmt.Fprintln(warn, "warning: WinRM certificates are not verified (--winrm-insecure-skip-tls-verify)")
				})
			}
			return winrm.New(cfg)
		case transport.SSH:
			if cfg.InsecureIgnoreHostKey {
				sshOnce.Do(func() {
					fmt.Fprintln(warn, "warning: SSH host keys are not verified (--ssh-insecure-ignore-host-key)")
				})
			}
			return ssh.New(cfg)
		case transport.Local:
			return local.New()
		}
		return nil, fmt.Errorf("unknown transport %q", cfg.Kind)
	}
}
