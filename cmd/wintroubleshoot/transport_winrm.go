package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
)

// winrmTransport is WinRM (WS-Management) over HTTPS or HTTP, with a password.
func winrmTransport() *transportSpec {
	var auth, ca string
	var insecure, basicHTTP bool
	return &transportSpec{
		kinds: []kindSpec{
			{transport.WinRMHTTPS, 5986, "5986"},
			{transport.WinRM, 5985, "5985, needs AllowUnencrypted on the node"},
		},
		flags: func(f *pflag.FlagSet) {
			f.StringVar(&auth, "winrm-auth", "ntlm", "WinRM authentication: ntlm or basic")
			f.StringVar(&ca, "winrm-ca-file", "", "PEM bundle to verify the nodes' WinRM HTTPS certificates (default: system roots)")
			f.BoolVar(&insecure, "winrm-insecure-skip-tls-verify", false, "do not verify WinRM HTTPS certificates (insecure; prints a warning)")
			f.BoolVar(&basicHTTP, "winrm-allow-basic-over-http", false, "allow --winrm-auth basic with --transport winrm (plain HTTP), which sends the password in clear (insecure; refused without this flag, warns when used)")
		},
		configure: func(c *transport.Config) {
			c.Auth, c.CAFile, c.InsecureSkipTLSVerify, c.AllowBasicOverHTTP = auth, ca, insecure, basicHTTP
		},
		validate: func() error {
			switch strings.ToLower(auth) {
			case "ntlm", "negotiate", "basic":
			default:
				return fmt.Errorf("--winrm-auth %q: want ntlm or basic", auth)
			}
			if ca != "" {
				if err := checkPEMCerts(ca); err != nil {
					return fmt.Errorf("--winrm-ca-file: %w", err)
				}
			}
			return nil
		},
		needsPassword: func() bool { return true },
		dial: func(cfg transport.Config, warn func(string)) (transport.Transport, error) {
			if cfg.InsecureSkipTLSVerify {
				warn("WinRM certificates are not verified (--winrm-insecure-skip-tls-verify)")
			}
			tr, err := winrm.New(cfg)
			if err == nil {
				for _, w := range transport.WarningsOf(tr) {
					warn(w) // Basic over plain HTTP, opted into
				}
			}
			return tr, err
		},
	}
}
