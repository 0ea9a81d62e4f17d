//go:build !windows

package agent

import (
	"fmt"
	"syscall"
)

// LowerPriority raises the agent's nice value to 10, so a sweep never competes with the
// node's pods; the snippets it starts inherit it.
func LowerPriority() error {
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10); err != nil {
		return fmt.Errorf("lowering the agent's priority: %w", err)
	}
	return nil
}
