// Package hostprocess reaches a Windows node through the Kubernetes API alone: it creates
// a short-lived HostProcess pod bound to the node, execs the sweep in it (pods/exec,
// WebSocket first, SPDY as fallback, as kubectl exec does) and deletes the pod again,
// also when the run is cancelled. No node address, port or password is involved. A
// Linux worker gets a privileged pod instead, the shell sweep run through nsenter (linux.go).
//
// Pod fields follow "Create a Windows HostProcess Pod" (kubernetes.io/docs/tasks/
// configure-pod-container/create-hostprocess-pod): securityContext.windowsOptions
// hostProcess true with runAsUserName "NT AUTHORITY\SYSTEM", hostNetwork true (required
// with hostProcess), the kubernetes.io/os=windows selector.
package hostprocess

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// DefaultImage is the HostProcess base image: a few KB, with no OS layer, so it runs on
// every Windows build (github.com/microsoft/windows-host-process-containers-base-image).
const DefaultImage = "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0"

// Labels every pod this package creates carries, so a killed run's leftovers are found.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "wintroubleshoot"
	RunLabel       = "wintroubleshoot.io/run"
	NodeAnnotation = "wintroubleshoot.io/node"
)

// Defaults of Options.
const (
	DefaultStartTimeout  = 2 * time.Minute
	DefaultDeleteTimeout = 30 * time.Second
	// podLifetime bounds a pod whose run was killed before it could delete it: the
	// kubelet ends it at activeDeadlineSeconds, and the next run deletes the object.
	podLifetime = time.Hour
)

// Options configure one run's pods.
type Options struct {
	Client    kubernetes.Interface
	Config    *rest.Config // for pods/exec
	Namespace string       // where the pods go: PodSecurity must allow privileged there
	Image     string       // "": DefaultImage
	// LinuxImage is the privileged pod's image for a Linux node (linux.go); "": DefaultLinuxImage.
	LinuxImage string
	// StartTimeout bounds the wait for a pod to run; 0: DefaultStartTimeout.
	StartTimeout time.Duration
	// DeleteTimeout bounds deleting a pod, on a fresh context so a cancelled run still
	// deletes; 0: DefaultDeleteTimeout.
	DeleteTimeout time.Duration
	// Warn reports a line for the user (leftovers removed); nil: dropped.
	Warn func(string)
}

// Run is one run of the tool: it names its pods with a run id and, before its first
// pod, removes the pods earlier runs left behind.
type Run struct {
	opts    Options
	id      string
	started time.Time
	once    sync.Once
	swept   error
}

// NewRun starts a run. Its id is random, so two runs at once never remove each other's pods.
func NewRun(opts Options) (*Run, error) {
	if opts.Client == nil || opts.Config == nil {
		return nil, fmt.Errorf("the hostprocess transport needs a Kubernetes cluster (kubeconfig)")
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Image == "" {
		opts.Image = DefaultImage
	}
	if opts.LinuxImage == "" {
		opts.LinuxImage = DefaultLinuxImage
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.DeleteTimeout <= 0 {
		opts.DeleteTimeout = DefaultDeleteTimeout
	}
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return &Run{opts: opts, id: hex.EncodeToString(b), started: time.Now()}, nil
}

// ID is the run id pods are labelled with.
func (r *Run) ID() string { return r.id }

// Namespace is where the run's pods go.
func (r *Run) Namespace() string { return r.opts.Namespace }

// Dial returns a transport to one node; its pod is created on the first Run.
func (r *Run) Dial(cfg transport.Config) (*Transport, error) {
	if cfg.Node == "" {
		return nil, fmt.Errorf("the hostprocess transport needs the node's Kubernetes name")
	}
	return &Transport{run: r, node: cfg.Node, timeout: cfg.Timeout}, nil
}

func (r *Run) warn(msg string) {
	if r.opts.Warn != nil {
		r.opts.Warn(msg)
	}
}

// removeLeftovers runs once per run, before its first pod: it deletes the pods earlier
// runs left behind (a run killed before it could delete them). A pod is a leftover when
// it is this tool's (label), of another run, and past the time its run said it needed it
// (ExpiresAnnotation); without a readable annotation, when it is older than podLifetime.
// A run going on at the same time keeps its pods: they have not expired.
func (r *Run) removeLeftovers(ctx context.Context) error {
	r.once.Do(func() { r.swept = r.sweepLeftovers(ctx) })
	return r.swept
}

func (r *Run) sweepLeftovers(ctx context.Context) error {
	pods := r.opts.Client.CoreV1().Pods(r.opts.Namespace)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: ManagedByLabel + "=" + ManagedByValue + "," + RunLabel + "!=" + r.id})
	if err != nil {
		return fmt.Errorf("listing earlier runs' pods: %w", err)
	}
	var removed []string
	for _, p := range list.Items {
		if !expired(p.Annotations[ExpiresAnnotation], p.CreationTimestamp.Time, r.started) {
			continue
		}
		if err := r.deletePod(ctx, p.Name); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the leftover pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		removed = append(removed, fmt.Sprintf("%s (node %s, run %s)", p.Name, p.Spec.NodeName, p.Labels[RunLabel]))
	}
	if len(removed) > 0 {
		r.warn(fmt.Sprintf("removed %d pod(s) an earlier run left in namespace %s: %s",
			len(removed), r.opts.Namespace, strings.Join(removed, ", ")))
	}
	return nil
}

func expired(annotation string, created, now time.Time) bool {
	if t, err := time.Parse(time.RFC3339, annotation); err == nil {
		return t.Before(now)
	}
	return created.Add(podLifetime).Before(now)
}
