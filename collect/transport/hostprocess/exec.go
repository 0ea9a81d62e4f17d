package hostprocess

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// ExecTarget is the container a command runs in.
type ExecTarget struct {
	Namespace, Pod, Container string
}

// Exec runs argv in a pod's container through the API server's pods/exec, stdin fed from
// the command's body: this package's own pods, and any transport that execs into a pod
// that already runs on the node. Like kubectl exec it speaks WebSocket
// (v5.channel.k8s.io) first and falls back to SPDY when the upgrade fails (an older API
// server, a proxy). A non-zero exit status is an Output, not an error.
func Exec(ctx context.Context, client kubernetes.Interface, cfg *rest.Config, at ExecTarget, argv []string, stdin []byte) (transport.Output, error) {
	req := client.CoreV1().RESTClient().Post().
		Resource("pods").Namespace(at.Namespace).Name(at.Pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: at.Container, Command: argv,
			Stdin: true, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
	if err != nil {
		return transport.Output{}, fmt.Errorf("preparing the SPDY exec: %w", err)
	}
	// WebSocket must be GET (RFC 6455 section 4.1).
	ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", req.URL().String())
	if err != nil {
		return transport.Output{}, fmt.Errorf("preparing the WebSocket exec: %w", err)
	}
	ex, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return transport.Output{}, err
	}
	var stdout, stderr bytes.Buffer
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: bytes.NewReader(stdin), Stdout: &stdout, Stderr: &stderr})
	out := transport.Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exit utilexec.ExitError
	if errors.As(err, &exit) && exit.Exited() {
		out.ExitCode = exit.ExitStatus()
		return out, nil
	}
	return out, err
}

// CommandArgs splits a sweep's command line into the argv exec takes (see commandArgs).
func CommandArgs(line string) ([]string, error) { return commandArgs(line) }
