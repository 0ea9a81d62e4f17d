// Package podexec reaches a Windows node through a HostProcess pod that already runs
// there: the agent DaemonSet's, or any HostProcess DaemonSet the cluster runs (a CNI's or
// kube-proxy's), found by label on the node and exec'd into through the API server. It
// creates nothing, so it works where the user may exec but may not create privileged
// pods, and nothing is left behind when a run is cut short.
//
// Only a HostProcess container sees the node (its processes, HNS, the host's files); a
// command in an ordinary Windows container sees the container. A pod that is not
// HostProcess is refused, never swept.
package podexec

import (
	"context"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
)

// Kind is the transport's name (--transport podexec).
const Kind transport.Kind = "podexec"

// podTransport execs into the chosen pod of one node; the pod is looked up on the first
// Run and kept for the next ones (a sweep, then fixes).
type podTransport struct {
	cluster transport.Cluster
	flags   Flags
	node    string

	mu     sync.Mutex
	target hostprocess.ExecTarget
}

func (t *podTransport) Endpoint() (transport.Kind, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.target.Pod != "" {
		return Kind, t.target.Namespace + "/" + t.target.Pod
	}
	return Kind, "node/" + t.node
}

// Run implements transport.Transport.
func (t *podTransport) Run(ctx context.Context, cmd transport.Command) (transport.Output, error) {
	argv, err := hostprocess.CommandArgs(cmd.CommandLine)
	if err != nil {
		return transport.Output{}, t.fail("run", err, "")
	}
	at, err := t.pod(ctx)
	if err != nil {
		return transport.Output{}, err
	}
	out, err := hostprocess.Exec(ctx, t.cluster.Interface(), t.cluster.RESTConfig(), at, argv, cmd.Stdin)
	if err != nil {
		return out, t.fail("exec in "+at.Namespace+"/"+at.Pod, err,
			"the exec needs create on pods/exec in namespace "+at.Namespace+"; the pod or its node may have gone away: kubectl get pod -n "+at.Namespace+" "+at.Pod)
	}
	return out, nil
}

// Close implements transport.Transport: there is nothing of ours to remove.
func (t *podTransport) Close() error { return nil }

// pod finds a running HostProcess pod on the node that the selector matches.
func (t *podTransport) pod(ctx context.Context) (hostprocess.ExecTarget, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.target.Pod != "" {
		return t.target, nil
	}
	list, err := t.cluster.Interface().CoreV1().Pods(t.flags.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: t.flags.Selector,
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", t.node).String(),
	})
	if err != nil {
		return hostprocess.ExecTarget{}, t.fail("find the pod", err,
			"listing pods needs list on pods in "+t.where()+": kubectl auth can-i list pods "+t.nsFlag())
	}
	var refused []string
	for _, p := range list.Items {
		c, why := t.container(p)
		if why != "" {
			refused = append(refused, p.Namespace+"/"+p.Name+": "+why)
			continue
		}
		t.target = hostprocess.ExecTarget{Namespace: p.Namespace, Pod: p.Name, Container: c}
		return t.target, nil
	}
	if len(refused) > 0 {
		return hostprocess.ExecTarget{}, t.fail("find the pod", fmt.Errorf("no pod can be used: %s", strings.Join(refused, "; ")),
			"a HostProcess DaemonSet's pod must run on the node, or use --transport hostprocess")
	}
	return hostprocess.ExecTarget{}, t.fail("find the pod",
		fmt.Errorf("no pod matching %q runs on node %s in %s", t.flags.Selector, t.node, t.where()),
		"deploy a HostProcess DaemonSet with that label, pass --podexec-selector, or use --transport hostprocess: kubectl get pods "+t.nsFlag()+" -l '"+t.flags.Selector+"' --field-selector spec.nodeName="+t.node)
}

// container picks the container to exec into, or says why the pod cannot be used.
func (t *podTransport) container(p corev1.Pod) (string, string) {
	if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
		return "", "not running (" + string(p.Status.Phase) + ")"
	}
	for _, c := range p.Spec.Containers {
		if t.flags.Container != "" && c.Name != t.flags.Container {
			continue
		}
		if !hostProcess(p.Spec.SecurityContext, c.SecurityContext) {
			return "", "container " + c.Name + " is not HostProcess: a command there sees the container, not the node"
		}
		for _, st := range p.Status.ContainerStatuses {
			if st.Name == c.Name && st.State.Running != nil {
				return c.Name, ""
			}
		}
		return "", "container " + c.Name + " is not running"
	}
	return "", "no container named " + t.flags.Container
}

// hostProcess: the container's own windowsOptions.hostProcess, else the pod's (the field
// the kubelet reads; KEP-1981: all containers of a pod share the value).
func hostProcess(pod *corev1.PodSecurityContext, c *corev1.SecurityContext) bool {
	if c != nil && c.WindowsOptions != nil && c.WindowsOptions.HostProcess != nil {
		return *c.WindowsOptions.HostProcess
	}
	return pod != nil && pod.WindowsOptions != nil && pod.WindowsOptions.HostProcess != nil && *pod.WindowsOptions.HostProcess
}

func (t *podTransport) where() string {
	if t.flags.Namespace == "" {
		return "any namespace"
	}
	return "namespace " + t.flags.Namespace
}

func (t *podTransport) nsFlag() string {
	if t.flags.Namespace == "" {
		return "-A"
	}
	return "-n " + t.flags.Namespace
}

func (t *podTransport) fail(op string, err error, hint string) error {
	return &transport.Error{Kind: Kind, Addr: "node/" + t.node, Op: op, Err: err, Hint: hint}
}
