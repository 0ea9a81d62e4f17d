package winrm

import (
	"crypto/x509"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// Options are WinRM's own flags.
type Options struct {
	Auth, CAFile       string
	InsecureSkipVerify bool
	AllowBasicOverHTTP bool
}

// Bind adds WinRM's flags.
func (o *Options) Bind(f *pflag.FlagSet) {
	f.StringVar(&o.Auth, "winrm-auth", "ntlm", "WinRM authentication: ntlm or basic")
	f.StringVar(&o.CAFile, "winrm-ca-file", "", "PEM bundle to verify the nodes' WinRM HTTPS certificates (default: system roots)")
	f.BoolVar(&o.InsecureSkipVerify, "winrm-insecure-skip-tls-verify", false, "do not verify WinRM HTTPS certificates (insecure; prints a warning)")
	f.BoolVar(&o.AllowBasicOverHTTP, "winrm-allow-basic-over-http", false, "allow --winrm-auth basic with --transport winrm (plain HTTP), which sends the password in clear (insecure; refused without this flag, warns when used)")
}

// Validate checks the options before anything connects.
func (o *Options) Validate() error {
	switch strings.ToLower(o.Auth) {
	case "ntlm", "negotiate", "basic":
	default:
		return fmt.Errorf("--winrm-auth %q: want ntlm or basic", o.Auth)
	}
	if o.CAFile != "" {
		if err := checkPEMCerts(o.CAFile); err != nil {
			return fmt.Errorf("--winrm-ca-file: %w", err)
		}
	}
	return nil
}

// checkPEMCerts says whether a file holds at least one PEM certificate, as the transport
// will need when it dials: found now, it is one usage error instead of one TLS failure
// per node.
func checkPEMCerts(path string) error {
	b, err := transport.ReadFlagFile(path)
	if err != nil {
		return err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return fmt.Errorf("%s holds no PEM certificate (want -----BEGIN CERTIFICATE----- blocks)", path)
	}
	return nil
}

// Spec registers WinRM (WS-Management) over HTTPS or HTTP, with a password.
func Spec() *transport.Spec {
	o := &Options{}
	return &transport.Spec{
		Kinds: []transport.KindSpec{
			{Kind: transport.WinRMHTTPS, Port: 5986, Use: "5986"},
			{Kind: transport.WinRM, Port: 5985, Use: "5985, needs AllowUnencrypted on the node"},
		},
		Bind: o.Bind,
		Configure: func(c *transport.Config) {
			c.Auth, c.CAFile, c.InsecureSkipTLSVerify, c.AllowBasicOverHTTP = o.Auth, o.CAFile, o.InsecureSkipVerify, o.AllowBasicOverHTTP
		},
		Validate:      o.Validate,
		NeedsPassword: func() bool { return true },
		Dial: func(cfg transport.Config, warn func(string)) (transport.Transport, error) {
			if cfg.InsecureSkipTLSVerify {
				warn("WinRM certificates are not verified (--winrm-insecure-skip-tls-verify)")
			}
			tr, err := New(cfg)
			if err == nil {
				for _, w := range transport.WarningsOf(tr) {
					warn(w) // Basic over plain HTTP, opted into
				}
			}
			return tr, err
		},
	}
}
