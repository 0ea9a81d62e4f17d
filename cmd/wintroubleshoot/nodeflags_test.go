package main

import (
	"context"
	"errors"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transports"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
)

func TestParseOverride(t *testing.T) {
	cases := map[string]engine.Override{
		"win-1=10.0.0.5":                {Name: "win-1", Kind: transport.WinRMHTTPS, Host: "10.0.0.5"},
		"win-1=10.0.0.5:5985":           {Name: "win-1", Kind: transport.WinRMHTTPS, Host: "10.0.0.5", Port: 5985},
		"win-1=ssh://node.example:2222": {Name: "win-1", Kind: transport.SSH, Host: "node.example", Port: 2222},
		"win-1=winrm://[fd00::5]:5985":  {Name: "win-1", Kind: transport.WinRM, Host: "fd00::5", Port: 5985},
		"win-1=[fd00::5]":               {Name: "win-1", Kind: transport.WinRMHTTPS, Host: "fd00::5"},
		"node-1=linux://10.0.0.7:2222":  {Name: "node-1", Kind: transport.SSH, Host: "10.0.0.7", Port: 2222, OS: evidence.Linux},
	}
	for in, want := range cases {
		got, err := parseOverride(transports.Registry(), in, transport.WinRMHTTPS)
		if err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"win-1", "=1.2.3.4", "win-1=", "win-1=ftp://x", "win-1=x:99999", "win-1=x:abc"} {
		if _, err := parseOverride(transports.Registry(), bad, transport.WinRMHTTPS); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestPasswordSources(t *testing.T) {
	ctx := context.Background()
	streams := genericiooptions.NewTestIOStreamsDiscard()
	file := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(file, []byte("from-file\r\nignored\n"), 0o600)

	a := nodeAccess{passwordEnv: "WTS_TEST_NODE_PW", transport: "winrm-https"}
	t.Setenv("WTS_TEST_NODE_PW", "from-env")
	if pw, err := a.password(ctx, streams, nil); err != nil || pw != "from-env" {
		t.Errorf("env: %q %v", pw, err)
	}
	a.passwordFile = file
	if pw, err := a.password(ctx, streams, nil); err != nil || pw != "from-file" {
		t.Errorf("file: %q %v", pw, err)
	}
	a.passwordFile, a.passwordSecret = "", "ns-1/windows-node-password"
	secret := func(_ context.Context, ns, name, key string) ([]byte, error) {
		if ns != "ns-1" || name != "windows-node-password" || key != "" {
			return nil, errors.New("wrong secret")
		}
		return []byte("from-secret\n"), nil
	}
	if pw, err := a.password(ctx, streams, secret); err != nil || pw != "from-secret" {
		t.Errorf("secret: %q %v", pw, err)
	}
	a.passwordSecret = "no-slash"
	if _, err := a.password(ctx, streams, secret); err == nil || !strings.Contains(err.Error(), "NAMESPACE/NAME") {
		t.Errorf("bad secret ref: %v", err)
	}
	a.passwordSecret = ""
	t.Setenv("WTS_TEST_NODE_PW", "")
	if _, err := a.password(ctx, streams, nil); err == nil || !strings.Contains(err.Error(), "WTS_TEST_NODE_PW") {
		t.Errorf("no password: %v", err)
	}
	a.passwordPrompt = true
	if _, err := a.password(ctx, streams, nil); err == nil || !strings.Contains(err.Error(), "terminal") {
		t.Errorf("prompt without a terminal: %v", err)
	}
	key := nodeAccess{}
	cmd := &cobra.Command{}
	key.addFlags(cmd)
	if err := cmd.ParseFlags([]string{"--transport", "ssh", "--ssh-key", "/k", "--password-env", "WTS_TEST_NODE_PW"}); err != nil {
		t.Fatal(err)
	}
	if pw, err := key.password(ctx, streams, nil); err != nil || pw != "" {
		t.Errorf("ssh key needs no password: %q %v", pw, err)
	}
}
