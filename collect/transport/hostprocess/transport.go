package hostprocess

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// Transport runs commands on one node in a HostProcess pod of its own.
type Transport struct {
	run     *Run
	node    string
	timeout time.Duration

	mu      sync.Mutex
	pod     string // "" until created, and again once deleted
	linux   bool   // the privileged Linux pod, not HostProcess (linux.go)
	decided bool   // linux is fixed by the first command
}

// Endpoint implements transport.Endpoint.
func (t *Transport) Endpoint() (transport.Kind, string) {
	return transport.HostProcess, "node/" + t.node
}

// Run implements transport.Transport: the pod is created (and waited for) on the first
// call and reused by the next ones (a sweep, then fixes). When ctx ends while the pod is
// starting or a command runs, the pod is deleted before Run returns.
func (t *Transport) Run(ctx context.Context, cmd transport.Command) (transport.Output, error) {
	if t.timeout > 0 {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, t.timeout)
			defer cancel()
		}
	}
	argv, err := t.args(cmd.CommandLine)
	if err != nil {
		return transport.Output{}, t.fail("run", err, "")
	}
	pod, err := t.ensurePod(ctx)
	if err != nil {
		return transport.Output{}, errors.Join(err, t.cleanupOnCancel(ctx))
	}
	out, err := t.run.exec(ctx, pod, argv, cmd.Stdin)
	if err != nil {
		err = t.execError(ctx, pod, err)
		return out, errors.Join(err, t.cleanupOnCancel(ctx))
	}
	return out, nil
}

// cleanupOnCancel deletes the pod at once when ctx has ended (Ctrl-C, the node's time
// limit): the caller may never get to Close.
func (t *Transport) cleanupOnCancel(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return t.Close()
}

func (t *Transport) ensurePod(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pod != "" {
		return t.pod, nil
	}
	if err := t.checkNode(ctx); err != nil {
		return "", err
	}
	if err := t.run.removeLeftovers(ctx); err != nil {
		return "", t.fail("remove leftover pods", err, t.run.rbacHint())
	}
	need := t.timeout
	if need <= 0 {
		need = DefaultStartTimeout
	}
	name, err := t.run.createPod(ctx, t.node, need, t.linux)
	if err != nil {
		return "", t.fail("create the "+t.podKind(), err, t.run.createHint(err))
	}
	if err := t.run.waitRunning(ctx, name); err != nil {
		// A pod that did not start is of no use to the next command either.
		dctx, cancel := context.WithTimeout(context.Background(), t.run.opts.DeleteTimeout)
		defer cancel()
		err = t.fail("start the "+t.podKind()+" "+t.run.opts.Namespace+"/"+name, err, startHint(err, t.imageFlag()))
		if derr := t.run.deletePod(dctx, name); derr != nil {
			err = errors.Join(err, t.fail("delete the pod "+t.run.opts.Namespace+"/"+name, derr, "kubectl delete pod -n "+t.run.opts.Namespace+" "+name))
		}
		return "", err
	}
	t.pod = name
	return name, nil
}

// Close implements transport.Transport: it deletes the pod, on a fresh context bounded
// by DeleteTimeout, so a cancelled run still removes it.
func (t *Transport) Close() error {
	t.mu.Lock()
	pod := t.pod
	t.pod = ""
	t.mu.Unlock()
	if pod == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.run.opts.DeleteTimeout)
	defer cancel()
	if err := t.run.deletePod(ctx, pod); err != nil {
		return t.fail("delete the pod "+t.run.opts.Namespace+"/"+pod, err,
			"kubectl delete pod -n "+t.run.opts.Namespace+" "+pod)
	}
	return nil
}

func (t *Transport) fail(op string, err error, hint string) error {
	var te *transport.Error
	if errors.As(err, &te) {
		return err
	}
	return &transport.Error{Kind: transport.HostProcess, Addr: "node/" + t.node, Op: op, Err: err, Hint: hint}
}

// commandArgs splits a command line into the argv exec takes. The command lines the tool
// sends are powershell.exe with plain switches and -EncodedCommand (base64): no quoting,
// so splitting on spaces is exact. Anything quoted is refused rather than guessed at.
// powershell.exe is named by its full path: a HostProcess container's PATH differs with
// the containerd version (the image's own folder comes first since containerd 1.7), the
// Windows folder does not.
func commandArgs(line string) ([]string, error) {
	if strings.ContainsAny(line, `"'`) {
		return nil, fmt.Errorf("command lines with quotes cannot be passed to exec as arguments: %.60q", line)
	}
	argv := strings.Fields(line)
	if len(argv) == 0 {
		return nil, fmt.Errorf("empty command line")
	}
	if strings.EqualFold(argv[0], "powershell.exe") || strings.EqualFold(argv[0], "powershell") {
		argv[0] = PowerShellPath
	}
	return argv, nil
}

// PowerShellPath is Windows PowerShell on every Windows Server build.
const PowerShellPath = `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`

// createHint says what to do about a refused pod: PodSecurity admission (the namespace
// enforces baseline or restricted, which forbid hostProcess and hostNetwork), RBAC, or a
// missing namespace.
func (r *Run) createHint(err error) string {
	ns := r.opts.Namespace
	switch {
	case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "violates PodSecurity"):
		return "HostProcess and privileged pods need PodSecurity privileged: kubectl label namespace " + ns +
			" pod-security.kubernetes.io/enforce=privileged, or pick such a namespace with --hostprocess-namespace"
	case apierrors.IsForbidden(err):
		return r.rbacHint()
	case apierrors.IsNotFound(err):
		return "kubectl create namespace " + ns + " (and label it pod-security.kubernetes.io/enforce=privileged)"
	}
	return ""
}

func (r *Run) rbacHint() string {
	return "the hostprocess transport needs pods create/get/list/watch/delete and pods/exec create in namespace " +
		r.opts.Namespace + ": see docs/rbac.yaml"
}

// startHint says what to do about a pod that did not start.
func startHint(err error, imageFlag string) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "ImagePullBackOff"), strings.Contains(msg, "ErrImagePull"):
		return "the node cannot pull the image: check its registry access, or mirror the image and pass " + imageFlag
	case errors.Is(err, errNotStarting):
		return "kubectl describe pod shows the kubelet's events"
	case strings.Contains(msg, "not running after"):
		return "the node's kubelet did not start the pod in time: kubectl get node; kubectl describe pod"
	}
	return ""
}
