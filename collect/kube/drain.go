package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/drain"
)

// DrainOptions are kubectl drain's choices. The zero value is `kubectl drain NODE
// --ignore-daemonsets`: DaemonSet pods stay (their controller would put them straight
// back), and the drain refuses, before touching anything, when a pod would be lost for good.
type DrainOptions struct {
	// Force also deletes pods no controller manages (--force): nothing recreates them.
	Force bool
	// DeleteEmptyDirData also evicts pods with emptyDir volumes (--delete-emptydir-data):
	// the data in those volumes is lost.
	DeleteEmptyDirData bool
	// GracePeriodSeconds overrides the pods' terminationGracePeriodSeconds when set
	// (--grace-period).
	GracePeriodSeconds *int64
	// Timeout bounds the evictions and the wait for evicted pods to go (--timeout); 0
	// waits as long as ctx allows. On a node whose kubelet is down, evicted pods stay
	// Terminating until the node object is deleted, so there the wait ends at the timeout
	// and those pods are reported as Pending, not as an error.
	Timeout time.Duration
	// RetryInterval is the pause before retrying an eviction a PodDisruptionBudget refused
	// (HTTP 429); 0 means 5s, as kubectl drain. The pause does not end early on cancel.
	RetryInterval time.Duration
}

// Commands are the kubectl commands these options amount to, for the fix preview.
func (o DrainOptions) Commands(node string) []string {
	cmd := "kubectl drain " + node + " --ignore-daemonsets"
	if o.Force {
		cmd += " --force"
	}
	if o.DeleteEmptyDirData {
		cmd += " --delete-emptydir-data"
	}
	if o.GracePeriodSeconds != nil {
		cmd += fmt.Sprintf(" --grace-period=%d", *o.GracePeriodSeconds)
	}
	if o.Timeout > 0 {
		cmd += " --timeout=" + o.Timeout.String()
	}
	return []string{"kubectl cordon " + node, cmd}
}

// DrainPlan is what a drain with given options would do, pods named namespace/name.
type DrainPlan struct {
	Evict   []string // evicted (PodDisruptionBudgets hold)
	Notes   []string // kubectl's warnings: pods left alone (DaemonSets) or deleted by --force
	Blocked []string // why the drain refuses: pods it would lose, and the flag that allows it
}

// DrainResult says what Drain did.
type DrainResult struct {
	Plan    DrainPlan // as listed once the node was cordoned
	Evicted []string  // eviction accepted
	Pending []string  // evicted but still present when the wait ended (no kubelet finishes them)
}

// ErrDrainBlocked marks a drain kubectl's filters refuse: pods that would be lost without
// --force or --delete-emptydir-data, or a DaemonSet it cannot read. Nothing was changed
// unless the error says the node was left cordoned.
var ErrDrainBlocked = errors.New("kubectl drain refuses")

// helper is kubectl's drainer for these options, writing its progress to out and errOut.
func (c *Client) helper(ctx context.Context, o DrainOptions, out, errOut *bytes.Buffer) *drain.Helper {
	grace := -1 // the pods' own grace period
	if o.GracePeriodSeconds != nil {
		grace = int(*o.GracePeriodSeconds)
	}
	retry := o.RetryInterval
	if retry <= 0 {
		retry = 5 * time.Second
	}
	return &drain.Helper{Ctx: ctx, Client: c.cs, Force: o.Force, DeleteEmptyDirData: o.DeleteEmptyDirData,
		IgnoreAllDaemonSets: true, GracePeriodSeconds: grace, Timeout: o.Timeout, EvictErrorRetryDelay: retry,
		Out: out, ErrOut: errOut}
}

// PlanDrain lists what Drain would do now, with kubectl drain's own filters, and changes
// nothing.
func (c *Client) PlanDrain(ctx context.Context, node string, o DrainOptions) (DrainPlan, error) {
	var out, errOut bytes.Buffer
	plan, _, err := c.plan(c.helper(ctx, o, &out, &errOut), node)
	return plan, err
}

func (c *Client) plan(h *drain.Helper, node string) (DrainPlan, []corev1.Pod, error) {
	list, errs := h.GetPodsForDeletion(node)
	if list == nil { // listing failed: nothing was filtered
		return DrainPlan{}, nil, c.fail(h.Ctx, errors.Join(errs...), "list", "pods", "", "")
	}
	var p DrainPlan
	pods := list.Pods()
	for _, pod := range pods {
		p.Evict = append(p.Evict, pod.Namespace+"/"+pod.Name)
	}
	if w := list.Warnings(); w != "" {
		p.Notes = strings.Split(w, "; ")
	}
	for _, e := range errs {
		p.Blocked = append(p.Blocked, e.Error())
	}
	sort.Strings(p.Evict)
	sort.Strings(p.Notes) // kubectl builds both from maps
	sort.Strings(p.Blocked)
	return p, pods, nil
}

// Drain does what `kubectl drain` does with these options: it refuses before changing
// anything when a pod would be lost, else cordons the node, evicts its pods through the
// Eviction API (so PodDisruptionBudgets hold; DaemonSet and mirror pods stay) and waits
// for them to go. It honours ctx; the result so far is returned with any error.
func (c *Client) Drain(ctx context.Context, node string, o DrainOptions) (DrainResult, error) {
	var out, errOut bytes.Buffer
	h := c.helper(ctx, o, &out, &errOut)
	plan, _, err := c.plan(h, node)
	if err != nil {
		return DrainResult{}, fmt.Errorf("draining node %s: %w", node, err)
	}
	if len(plan.Blocked) > 0 {
		return DrainResult{Plan: plan}, fmt.Errorf("draining node %s: %w: %s", node, ErrDrainBlocked, strings.Join(plan.Blocked, "; "))
	}
	if err := c.Cordon(ctx, node); err != nil {
		return DrainResult{Plan: plan}, fmt.Errorf("draining node %s: %w", node, err)
	}
	// List again: cordoned, nothing new lands, and what is evicted is what is there now.
	plan, pods, err := c.plan(h, node)
	res := DrainResult{Plan: plan}
	switch {
	case err != nil:
		return res, fmt.Errorf("draining node %s: %w", node, err)
	case len(plan.Blocked) > 0:
		return res, fmt.Errorf("draining node %s (left cordoned): %w: %s", node, ErrDrainBlocked, strings.Join(plan.Blocked, "; "))
	}
	evictErr := h.DeleteOrEvictPods(pods)
	if evictErr == nil {
		res.Evicted = plan.Evict
		return res, nil
	}
	// kubectl reports a wait that ran out as an error. Here a pod whose eviction was
	// accepted and that is still Terminating is expected (a node being repaired often has
	// no working kubelet); only pods never evicted make the drain fail.
	check, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var refused []string
	for _, p := range pods {
		now, err := c.cs.CoreV1().Pods(p.Namespace).Get(check, p.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err), err == nil && now.UID != p.UID:
			res.Evicted = append(res.Evicted, p.Namespace+"/"+p.Name)
		case err == nil && now.DeletionTimestamp != nil:
			res.Evicted = append(res.Evicted, p.Namespace+"/"+p.Name)
			res.Pending = append(res.Pending, p.Namespace+"/"+p.Name)
		default:
			refused = append(refused, p.Namespace+"/"+p.Name)
		}
	}
	sort.Strings(res.Evicted)
	sort.Strings(res.Pending)
	if len(refused) == 0 && ctx.Err() == nil {
		return res, nil
	}
	why := lastLine(errOut.String())
	if why == "" {
		why = evictErr.Error()
	}
	err = fmt.Errorf("draining node %s (left cordoned): not evicted: %s: %s", node, strings.Join(refused, ", "), why)
	if ctx.Err() != nil {
		err = fmt.Errorf("%w: %w", err, context.Cause(ctx))
	}
	return res, err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
