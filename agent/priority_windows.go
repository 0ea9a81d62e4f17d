package agent

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// LowerPriority puts the agent below normal priority, so a sweep never competes with the
// node's pods. Windows gives a below-normal process's children (powershell.exe, the
// snippets) the same class (CreateProcess: "the new process inherits this class").
func LowerPriority() error {
	if err := windows.SetPriorityClass(windows.CurrentProcess(), windows.BELOW_NORMAL_PRIORITY_CLASS); err != nil {
		return fmt.Errorf("lowering the agent's priority: %w", err)
	}
	return nil
}
