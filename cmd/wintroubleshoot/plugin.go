package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// pluginName is the binary name kubectl looks for on PATH to run `kubectl wintroubleshoot`.
const pluginName = "kubectl-wintroubleshoot"

// displayName is how help names the program: "kubectl wintroubleshoot" when it was
// started through kubectl's plugin mechanism (kubectl runs kubectl-wintroubleshoot with
// that as argv[0]), "wintroubleshoot" otherwise.
func displayName(argv0 string) string {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if base == pluginName || strings.HasPrefix(base, pluginName+"-") {
		return "kubectl wintroubleshoot"
	}
	return "wintroubleshoot"
}

// renameInHelp makes every command's examples and long help say name instead of
// wintroubleshoot, so a kubectl plugin user can paste them.
func renameInHelp(root *cobra.Command, name string) {
	if name == "wintroubleshoot" {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = name
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Example = rename(c.Example, name)
		c.Long = rename(c.Long, name)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// rename replaces "wintroubleshoot" where it is used as the command: at the start or
// after a space, quote or parenthesis, and before a space, quote or the end. So file
// names such as wintroubleshoot-snapshot-....tar.gz and wintroubleshoot.exe stay.
func rename(text, name string) string {
	const self = "wintroubleshoot"
	var b strings.Builder
	for start := true; ; start = false {
		i := strings.Index(text, self)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + len(self)
		// At i == 0 after the first match, the character before is the "t" it ended with.
		before := i == 0 && start || i > 0 && strings.ContainsRune(" \t\n'(", rune(text[i-1]))
		after := end == len(text) || strings.ContainsRune(" \t\n'", rune(text[end]))
		b.WriteString(text[:i])
		if before && after {
			b.WriteString(name)
		} else {
			b.WriteString(self)
		}
		text = text[end:]
	}
}
