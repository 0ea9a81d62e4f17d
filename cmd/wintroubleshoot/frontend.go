package main

import (
	"os"

	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// screenTerminal says why the interactive screen cannot open on these streams, or nil:
// it draws with escape codes and reads keys, so it needs a terminal on both stdin and
// stdout. Without one (a pipe, a file, a CI job) the screen's escape codes would land in
// the file and bubbletea would fail reading a non-terminal stdin.
func screenTerminal(streams genericiooptions.IOStreams) error {
	in, out := isTerminal(streams.In), isTerminal(streams.Out)
	if in && out {
		return nil
	}
	which := "stdout"
	switch {
	case !in && !out:
		which = "stdin and stdout"
	case !in:
		which = "stdin"
	}
	return usageErr("the interactive screen needs a terminal, and %s is not one: "+
		"pass --report (or -o text|markdown|json|junit) to print the findings instead", which)
}

func isTerminal(s any) bool {
	f, ok := s.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
