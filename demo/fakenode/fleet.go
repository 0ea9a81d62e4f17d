package fakenode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// Member is one fake node of a fleet, with how to reach it.
type Member struct {
	Scenario string // scenario it answers from
	Node     string // the node's name in that scenario
	FS       fs.FS  // the scenario tree
	Config   transport.Config
	Fake     *Node
	WinRM    *WinRMServer
	SSH      *SSHServer
}

// FleetScenario names one scenario and node to serve.
type FleetScenario struct {
	Name string
	Node string
	FS   fs.FS
}

// Fleet is a set of fake nodes on loopback sharing one account, each reached over real
// WinRM HTTPS (certificate verified), SSH (host key verified) or WinRM HTTP in turn.
type Fleet struct {
	Members []*Member
	Dir     string // holds the CA bundle and known_hosts the configs point at
}

// StartFleet starts a fake node per scenario. The password is random and never printed;
// the configs carry it.
func StartFleet(ctx context.Context, scenarios []FleetScenario) (*Fleet, error) {
	dir, err := os.MkdirTemp("", "wts-fleet-")
	if err != nil {
		return nil, fmt.Errorf("creating the fleet folder: %w", err)
	}
	f := &Fleet{Dir: dir}
	pw := make([]byte, 18)
	if _, err := rand.Read(pw); err != nil {
		return nil, err
	}
	user, password := "Administrator", hex.EncodeToString(pw)
	caFile, khFile := filepath.Join(dir, "winrm-ca.pem"), filepath.Join(dir, "known_hosts")
	var caPEM, known []byte
	kinds := []transport.Kind{transport.WinRMHTTPS, transport.SSH, transport.WinRM}
	for i, sc := range scenarios {
		m := &Member{Scenario: sc.Name, Node: sc.Node, FS: sc.FS, Fake: NewNode(NodeOptions{Scenario: sc.FS, Node: sc.Node})}
		kind := kinds[i%len(kinds)]
		cfg := transport.Config{Kind: kind, Host: "127.0.0.1", User: user, Password: password, Auth: "ntlm"}
		switch kind {
		case transport.SSH:
			m.SSH, err = StartSSH(ctx, m.Fake, SSHOptions{User: user, Password: password, HostKeySeed: sc.Name + "/" + sc.Node})
			if err == nil {
				known = append(known, knownhosts.Line([]string{knownhosts.Normalize(m.SSH.Addr())}, m.SSH.HostKey())+"\n"...)
				cfg.Port = port(m.SSH.Addr())
				cfg.KnownHosts = khFile
			}
		default:
			https := kind == transport.WinRMHTTPS
			m.WinRM, err = StartWinRM(ctx, m.Fake, WinRMOptions{User: user, Password: password, TLS: https, AllowUnencrypted: !https})
			if err == nil {
				caPEM = append(caPEM, m.WinRM.CertPEM()...)
				cfg.Port = port(m.WinRM.Addr())
				cfg.CAFile = caFile
			}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("starting the fake node of %s: %w", sc.Name, err)
		}
		m.Config = cfg
		f.Members = append(f.Members, m)
	}
	err = errors.Join(os.WriteFile(caFile, caPEM, 0o600), os.WriteFile(khFile, known, 0o600))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the fleet's trust files: %w", err)
	}
	return f, nil
}

// Close stops every server and removes the trust files.
func (f *Fleet) Close() error {
	var errs []error
	for _, m := range f.Members {
		if m.WinRM != nil {
			errs = append(errs, m.WinRM.Close())
		}
		if m.SSH != nil {
			errs = append(errs, m.SSH.Close())
		}
	}
	errs = append(errs, os.RemoveAll(f.Dir))
	return errors.Join(errs...)
}

func port(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return n
}
