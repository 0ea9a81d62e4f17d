//go:build windows

package main

import (
	"golang.org/x/sys/windows"
)

// elevated says why the local sweep cannot run unelevated: HNS, the services' settings
// and the firewall's rules are readable only by administrators.
func elevated() error {
	if windows.GetCurrentProcessToken().IsElevated() {
		return nil
	}
	return usageErr("--transport local needs an elevated prompt: start PowerShell with \"Run as administrator\" and run wintroubleshoot.exe again")
}
