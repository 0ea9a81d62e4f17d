//go:build windows

package local

import (
	"encoding/json"
	"fmt"

	"github.com/Microsoft/hcsshim"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// New runs sweeps on this Windows machine.
func New() (transport.Transport, error) {
	return localTransport{readHNS: readHNS}, nil
}

// readHNS lists the HNS networks through the HNS API (v1 schema, as Get-HnsNetwork).
func readHNS() ([]byte, error) {
	nets, err := hcsshim.HNSListNetworkRequest("GET", "", "")
	if err != nil {
		return nil, fmt.Errorf("listing HNS networks: %w", err)
	}
	return json.Marshal(nets)
}
