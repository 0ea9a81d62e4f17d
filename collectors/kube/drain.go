package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DrainOptions tune Drain. The zero value evicts with each pod's own grace period and
// does not wait for the pods to be gone.
type DrainOptions struct {
	// GracePeriodSeconds overrides the pods' terminationGracePeriodSeconds when set.
	GracePeriodSeconds *int64
	// Timeout is how long to wait for evicted pods to disappear; 0 does not wait. On a node
	// whose kubelet is down, evicted pods stay Terminating until the node object is deleted,
	// so waiting there only ends at the timeout.
	Timeout time.Duration
	// RetryInterval is the pause before retrying an eviction a PodDisruptionBudget refused
	// (HTTP 429); 0 means 5s, as kubectl drain.
	RetryInterval time.Duration
}

// DrainResult says what Drain did, pods named namespace/name.
type DrainResult struct {
	Evicted   []string // eviction accepted
	Skipped   []string // left alone, with why: "kube-system/kube-proxy-x (DaemonSet)"
	Remaining []string // evicted but still present when Timeout passed
}

// Drain cordons the node and evicts its pods through the Eviction API (so
// PodDisruptionBudgets hold), except DaemonSet-owned pods (the DaemonSet controller would
// put them straight back) and mirror pods (the kubelet owns static pods). It honours ctx:
// cancelling stops retries and waiting, and the result so far is returned with the error.
func (c *Client) Drain(ctx context.Context, node string, opts DrainOptions) (DrainResult, error) {
	var res DrainResult
	if err := c.Cordon(ctx, node); err != nil {
		return res, fmt.Errorf("draining node %s: %w", node, err)
	}
	pods, err := c.podsOn(ctx, node)
	if err != nil {
		return res, fmt.Errorf("draining node %s: %w", node, err)
	}
	evicted := map[string]types.UID{}
	for _, p := range pods {
		id := p.Namespace + "/" + p.Name
		if why := keepReason(p); why != "" {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s (%s)", id, why))
			continue
		}
		gone, err := c.evict(ctx, p, opts)
		if err != nil {
			return res, fmt.Errorf("draining node %s: %w", node, err)
		}
		res.Evicted = append(res.Evicted, id)
		if !gone {
			evicted[id] = p.UID
		}
	}
	if opts.Timeout <= 0 || len(evicted) == 0 {
		return res, nil
	}
	res.Remaining, err = c.waitGone(ctx, evicted, opts.Timeout)
	if err != nil {
		return res, fmt.Errorf("draining node %s: %w", node, err)
	}
	return res, nil
}

// keepReason says why a pod is not evicted ("" to evict it).
func keepReason(p corev1.Pod) string {
	if _, ok := p.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return "mirror pod of a static pod, managed by the kubelet"
	}
	if ref := metav1.GetControllerOf(&p); ref != nil && ref.Kind == "DaemonSet" {
		return "DaemonSet " + ref.Name
	}
	return ""
}

// evict posts an Eviction, retrying while a PodDisruptionBudget refuses it. gone reports
// the pod no longer exists.
func (c *Client) evict(ctx context.Context, p corev1.Pod, opts DrainOptions) (gone bool, err error) {
	ev := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: opts.GracePeriodSeconds, Preconditions: &metav1.Preconditions{UID: &p.UID}},
	}
	interval := opts.RetryInterval
	if interval <= 0 {
		interval = 5 * time.Second
	}
	var refused error // the last PodDisruptionBudget refusal, to explain a timeout
	for {
		err := c.cs.CoreV1().Pods(p.Namespace).EvictV1(ctx, ev)
		if err != nil && refused != nil && ctx.Err() != nil {
			err = refused
		}
		switch {
		case err == nil:
			return false, nil
		case apierrors.IsNotFound(err):
			return true, nil
		case apierrors.IsTooManyRequests(err):
			// A PodDisruptionBudget allows no disruption now; kubectl drain waits too.
			refused = err
			select {
			case <-ctx.Done():
				return false, fmt.Errorf("evicting pod %s/%s: a PodDisruptionBudget still refuses it (%v): %w",
					p.Namespace, p.Name, strings.TrimSpace(err.Error()), ctx.Err())
			case <-time.After(interval):
			}
		default:
			return false, c.fail(ctx, err, "create", "pods/eviction", p.Namespace, p.Name)
		}
	}
}

// waitGone polls until every evicted pod is gone (or replaced: same name, new UID) and
// returns those still present at the timeout.
func (c *Client) waitGone(ctx context.Context, pods map[string]types.UID, timeout time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		var left []string
		for id, uid := range pods {
			ns, name, _ := strings.Cut(id, "/")
			p, err := c.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err), err == nil && p.UID != uid:
				delete(pods, id)
			case err != nil && ctx.Err() == nil:
				return nil, c.fail(ctx, err, "get", "pods", ns, name)
			default:
				left = append(left, id)
			}
		}
		if len(left) == 0 {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				// The timeout is the caller's choice: report what remains, not an error.
				return sortedStrings(left), nil
			}
			return sortedStrings(left), ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func sortedStrings(ss []string) []string {
	sort.Strings(ss)
	return ss
}
