package hostprocess

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
)

// exec runs argv in the pod's container through the API server's pods/exec, stdin fed
// from the command's body. Like kubectl exec it speaks WebSocket (v5.channel.k8s.io)
// first and falls back to SPDY when the upgrade fails (an older API server, a proxy).
// A non-zero exit status is an Output, not an error.
func (r *Run) exec(ctx context.Context, pod string, argv []string, stdin []byte) (transport.Output, error) {
	req := r.opts.Client.CoreV1().RESTClient().Post().
		Resource("pods").Namespace(r.opts.Namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: containerName, Command: argv,
			Stdin: true, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	spdy, err := remotecommand.NewSPDYExecutor(r.opts.Config, "POST", req.URL())
	if err != nil {
		return transport.Output{}, fmt.Errorf("preparing the SPDY exec: %w", err)
	}
	// WebSocket must be GET (RFC 6455 section 4.1).
	ws, err := remotecommand.NewWebSocketExecutor(r.opts.Config, "GET", req.URL().String())
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

// mayExec asks the API server whether this user may exec into the pod: the refusal of an
// exec upgrade comes back as plain text ("unable to upgrade connection: ..."), not as a
// Status to test, so RBAC is asked directly (SelfSubjectAccessReview, which every
// authenticated user may create). An unanswered question counts as allowed.
func (r *Run) mayExec(pod string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.DeleteTimeout)
	defer cancel()
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: r.opts.Namespace, Verb: "create",
			Resource: "pods", Subresource: "exec", Name: pod}}}
	got, err := r.opts.Client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	return err != nil || got.Status.Allowed
}

// execError words a failed exec: cancelled, forbidden (RBAC on pods/exec), or the
// stream cut (the node went away, the kubelet restarted).
func (t *Transport) execError(ctx context.Context, pod string, err error) error {
	where := "exec in " + t.run.opts.Namespace + "/" + pod
	switch {
	case ctx.Err() != nil:
		return t.fail(where, fmt.Errorf("%w (%v)", ctx.Err(), err), "")
	case apierrors.IsForbidden(err) || !t.run.mayExec(pod):
		return t.fail(where, err, "the exec needs create on pods/exec in namespace "+t.run.opts.Namespace+": see docs/rbac.yaml")
	}
	return t.fail(where, fmt.Errorf("the stream ended before the command did: %w", err),
		"the node or its kubelet may have gone away: kubectl get node "+t.node)
}
