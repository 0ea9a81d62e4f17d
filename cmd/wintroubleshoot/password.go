package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// secretFunc reads one key of a Kubernetes Secret.
type secretFunc func(ctx context.Context, namespace, name, key string) ([]byte, error)

// needsPassword says whether the chosen authentication uses a password at all.
func (a *nodeAccess) needsPassword() bool {
	return a.transports().NeedsPassword(transport.Kind(a.transport))
}

// password finds the node password: a file, a Secret, a prompt, then the environment.
// It never comes from argv, and errors never include it.
func (a *nodeAccess) password(ctx context.Context, streams genericiooptions.IOStreams, secret secretFunc) (string, error) {
	switch {
	case a.passwordFile != "":
		b, err := os.ReadFile(a.passwordFile)
		if err != nil {
			return "", fmt.Errorf("reading --password-file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(line, "\r"), nil
	case a.passwordSecret != "":
		ns, rest, ok := strings.Cut(a.passwordSecret, "/")
		name, key, _ := strings.Cut(rest, ":")
		if !ok || ns == "" || name == "" {
			return "", fmt.Errorf("--password-secret %q: want NAMESPACE/NAME[:KEY]", a.passwordSecret)
		}
		if secret == nil {
			return "", errors.New("--password-secret needs a cluster: pass --kubeconfig or --password-secret-kubeconfig")
		}
		b, err := secret(ctx, ns, name, key)
		if err != nil {
			return "", fmt.Errorf("reading the node password from Secret %s/%s: %w", ns, name, err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	case a.passwordPrompt:
		return prompt(streams)
	}
	if v, ok := os.LookupEnv(a.passwordEnv); ok && v != "" {
		return v, nil
	}
	if !a.needsPassword() {
		return "", nil
	}
	if f, ok := streams.In.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return prompt(streams)
	}
	return "", fmt.Errorf("no node password (set %s, or pass --password-file, --password-secret or --password-prompt)", a.passwordEnv)
}

func prompt(streams genericiooptions.IOStreams) (string, error) {
	f, ok := streams.In.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", errors.New("--password-prompt needs a terminal on standard input")
	}
	fmt.Fprint(streams.ErrOut, "node password: ")
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(streams.ErrOut)
	if err != nil {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	return string(b), nil
}
