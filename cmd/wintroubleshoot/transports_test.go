package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// TestTransportRegistry: parsing, help, completion, ports, the password rule and the
// warnings all come from the registered transports.
func TestTransportRegistry(t *testing.T) {
	var a nodeAccess
	cmd := &cobra.Command{}
	a.addFlags(cmd)
	reg := a.transports()
	for _, k := range []transport.Kind{transport.WinRMHTTPS, transport.WinRM, transport.SSH, transport.Local} {
		if got, err := reg.Parse(string(k)); err != nil || got != k {
			t.Errorf("parse(%s) = %s, %v", k, got, err)
		}
		if !strings.Contains(cmd.Flags().Lookup("transport").Usage, string(k)) {
			t.Errorf("--transport help lacks %s", k)
		}
	}
	if _, err := reg.Parse("telnet"); err == nil || !strings.Contains(err.Error(), "winrm-https, winrm, ssh, local") {
		t.Errorf("parse(telnet): %v", err)
	}
	if got := reg.Config(transport.Config{Kind: transport.WinRM, Host: "h"}).Address(); got != "h:5985" {
		t.Errorf("winrm address %s", got)
	}
	if err := cmd.ParseFlags([]string{"--winrm-auth", "basic", "--winrm-ca-file", "ca.pem", "--ssh-agent"}); err != nil {
		t.Fatal(err)
	}
	c := a.config(transport.WinRMHTTPS, "10.0.0.5", 0)
	if c.Auth != "basic" || c.CAFile != "ca.pem" || c.Port != 5986 || c.UseAgent {
		t.Errorf("winrm config %+v: the flags did not land, or the SSH ones leaked in", c)
	}
	if s := a.config(transport.SSH, "10.0.0.5", 0); !s.UseAgent || s.Auth != "" || s.Port != 22 {
		t.Errorf("ssh config %+v", s)
	}
	for kind, want := range map[transport.Kind]bool{transport.WinRMHTTPS: true, transport.SSH: false, transport.Local: false} {
		if got := reg.NeedsPassword(kind); got != want {
			t.Errorf("%s needs a password: %v, want %v (with --ssh-agent)", kind, got, want)
		}
	}
	var warn bytes.Buffer
	dial := reg.Dialer(&warn)
	insecure := transport.Config{Kind: transport.SSH, Host: "127.0.0.1", Port: 1, User: "u", Password: "p", InsecureIgnoreHostKey: true}
	for range 3 {
		if tr, err := dial(context.Background(), insecure); err == nil {
			tr.Close()
		}
	}
	if n := strings.Count(warn.String(), "SSH host keys are not verified"); n != 1 {
		t.Errorf("the insecure warning came %d times: %q", n, warn.String())
	}
	if _, err := dial(context.Background(), transport.Config{Kind: "telnet"}); err == nil {
		t.Error("dialed an unknown transport")
	}
}
