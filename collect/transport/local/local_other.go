//go:build !windows

package local

import (
	"errors"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// New fails off Windows: there is no node here to sweep.
func New() (transport.Transport, error) {
	return nil, &transport.Error{Kind: transport.Local, Addr: "localhost", Op: "configure",
		Err:  errors.New("the local transport runs only on Windows"),
		Hint: "run it on the node, or reach the node with --transport winrm-https or ssh"}
}
