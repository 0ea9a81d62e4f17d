package hostprocess

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/ptr"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

const (
	containerName = "sweep"
	// ExpiresAnnotation is when the run that made a pod no longer needs it: past it, any
	// other run removes the pod as a leftover.
	ExpiresAnnotation = "wintroubleshoot.io/expires"
)

// podSpec is the HostProcess pod for one node. It is bound with spec.nodeName (no
// scheduler), tolerates every taint (Windows pools are often tainted
// os=windows:NoSchedule), and its container only waits: the sweep is exec'd into it.
func (r *Run) podSpec(node string, expires time.Time) *corev1.Pod {
	deadline := int64(podLifetime / time.Second)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "wintroubleshoot-",
			Namespace:    r.opts.Namespace,
			Labels:       map[string]string{ManagedByLabel: ManagedByValue, RunLabel: r.id},
			Annotations:  map[string]string{NodeAnnotation: node, ExpiresAnnotation: expires.UTC().Format(time.RFC3339)},
		},
		Spec: corev1.PodSpec{
			NodeName:      node,
			NodeSelector:  map[string]string{"kubernetes.io/os": "windows"},
			Tolerations:   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			HostNetwork:   true,
			RestartPolicy: corev1.RestartPolicyNever,
			// The kubelet ends the pod by itself if no run deletes it (a killed run).
			ActiveDeadlineSeconds:         &deadline,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			AutomountServiceAccountToken:  ptr.To(false),
			SecurityContext: &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{
				HostProcess:   ptr.To(true),
				RunAsUserName: ptr.To(`NT AUTHORITY\SYSTEM`),
			}},
			Containers: []corev1.Container{{
				Name:    containerName,
				Image:   r.opts.Image,
				Command: []string{PowerShellPath, "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", fmt.Sprintf("Start-Sleep -Seconds %d", deadline)},
			}},
		},
	}
}

// createPod creates the node's pod and returns its name.
func (r *Run) createPod(ctx context.Context, node string, need time.Duration, linux bool) (string, error) {
	expires := time.Now().Add(r.opts.StartTimeout + need + time.Minute)
	pod := r.podSpec(node, expires)
	if linux {
		pod = r.linuxPodSpec(node, expires)
	}
	got, err := r.opts.Client.CoreV1().Pods(r.opts.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return got.Name, nil
}

// errNotStarting is a pod the kubelet reports it cannot start (an image that does not
// pull, a container that cannot be created): waiting longer would not help.
var errNotStarting = errors.New("the pod cannot start")

// waitRunning watches the pod until its container runs, it fails, or StartTimeout passes;
// the error then says the pod's real state.
func (r *Run) waitRunning(parent context.Context, name string) error {
	ctx, cancel := context.WithTimeout(parent, r.opts.StartTimeout)
	defer cancel()
	pods := r.opts.Client.CoreV1().Pods(r.opts.Namespace)
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return pods.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return pods.Watch(ctx, o)
		},
	}
	var last *corev1.Pod
	_, err := watchtools.UntilWithSync(ctx, lw, &corev1.Pod{}, nil, func(ev watch.Event) (bool, error) {
		if ev.Type == watch.Deleted {
			return false, fmt.Errorf("the pod was deleted while starting")
		}
		pod, ok := ev.Object.(*corev1.Pod)
		if !ok {
			return false, nil
		}
		last = pod
		switch pod.Status.Phase {
		case corev1.PodRunning:
			return containerRunning(pod), nil
		case corev1.PodFailed, corev1.PodSucceeded:
			return false, fmt.Errorf("the pod ended: %s", describe(pod))
		}
		if waitingHopeless(pod) {
			return false, fmt.Errorf("%w: %s", errNotStarting, describe(pod))
		}
		return false, nil
	})
	state := "not seen yet"
	node := ""
	if last != nil {
		state, node = describe(last), last.Spec.NodeName
	}
	switch {
	case err == nil:
		return nil
	case parent.Err() != nil:
		return fmt.Errorf("stopped while the pod was starting (%s): %w", state, parent.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("not running after %s: %s%s", r.opts.StartTimeout, state, r.nodeState(node))
	}
	return err
}

func containerRunning(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == containerName && cs.State.Running != nil {
			return true
		}
	}
	return false
}

// waitingHopeless: waiting reasons the kubelet gives for a container that will not start
// without someone changing something (pkg/kubelet/images, kuberuntime).
func waitingHopeless(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull",
				"CreateContainerConfigError", "CreateContainerError", "RunContainerError":
				return true
			}
		}
	}
	return false
}

// describe is a pod's state in one line, as kubectl describe would show it: phase,
// reason, the waiting container's reason and message, a False condition's reason.
func describe(pod *corev1.Pod) string {
	parts := []string{"phase " + string(pod.Status.Phase)}
	if pod.Status.Phase == "" {
		parts = []string{"no status yet (no kubelet has taken the pod)"}
	}
	if pod.Status.Reason != "" {
		parts = append(parts, pod.Status.Reason+": "+pod.Status.Message)
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			parts = append(parts, fmt.Sprintf("%s: %s", c.Reason, c.Message))
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			s := "container " + cs.Name + " waiting: " + w.Reason
			if w.Message != "" {
				s += " (" + w.Message + ")"
			}
			parts = append(parts, s)
		}
		if t := cs.State.Terminated; t != nil {
			parts = append(parts, fmt.Sprintf("container %s terminated: %s, exit %d %s", cs.Name, t.Reason, t.ExitCode, t.Message))
		}
	}
	return strings.Join(parts, "; ")
}

// nodeState adds why no kubelet may be answering: the node is missing or not Ready.
func (r *Run) nodeState(node string) string {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.DeleteTimeout)
	defer cancel()
	n, err := r.opts.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "; the node " + node + " does not exist"
	case err != nil:
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			return fmt.Sprintf("; the node %s is not Ready (%s: %s)", node, c.Reason, c.Message)
		}
	}
	return ""
}

// deletePod removes the pod at once (grace period 0): it runs nothing but a wait and the
// exec has ended, and the kubelet stops the containers of a pod gone from the API.
func (r *Run) deletePod(ctx context.Context, name string) error {
	err := r.opts.Client.CoreV1().Pods(r.opts.Namespace).Delete(ctx, name,
		metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// exec runs argv in the run's pod (Exec).
func (r *Run) exec(ctx context.Context, pod string, argv []string, stdin []byte) (transport.Output, error) {
	return Exec(ctx, r.opts.Client, r.opts.Config, ExecTarget{Namespace: r.opts.Namespace, Pod: pod, Container: containerName}, argv, stdin)
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
