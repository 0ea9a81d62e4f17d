package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// NodeInfo is what the sweep needs to reach and judge a node.
type NodeInfo struct {
	Name       string
	InternalIP string
	Build      string // "10.0.17763": node.kubernetes.io/windows-build, else from kernelVersion; "" on Linux
}

// Discovery is what Collect learned about the cluster.
type Discovery struct {
	Windows     []NodeInfo // nodes to sweep, sorted by name
	All         []NodeInfo // every node (peers for routes), sorted by name
	KubeDNS     string     // kube-dns Service ClusterIP, "" when not found
	ServiceCIDR string     // see cluster/cluster-config.json for where each came from
	ClusterCIDR string
	// Skipped names the evidence not collected for lack of permission (or an API the
	// cluster does not serve), with why; the rest was collected.
	Skipped []string
}

const windowsBuildLabel = "node.kubernetes.io/windows-build"

// Collect writes the cluster evidence into t under the evidence.Cluster* paths and
// returns the Windows nodes. Nodes, Services and Pods are required; Events, DaemonSets and
// the configuration behind cluster-config.json are collected when permitted, and a
// <path>.err file plus a Skipped entry say why one was not.
func (c *Client) Collect(ctx context.Context, t *evidence.Tree) (Discovery, error) {
	var d Discovery
	nodes, err := pages(ctx, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Node, string, error) {
		l, err := c.cs.CoreV1().Nodes().List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return d, fmt.Errorf("discovering nodes: %w", c.fail(ctx, err, "list", "nodes", "", ""))
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	listed := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		listed[n.Name] = true
	}
	c.listed.Store(&listed)
	for _, n := range nodes {
		info := nodeInfo(n)
		d.All = append(d.All, info)
		if decode.IsWindows(n) {
			d.Windows = append(d.Windows, info)
		}
	}
	if err := c.put(t, evidence.PathNodes, "v1", "Node", nodes); err != nil {
		return d, err
	}

	svcs, err := pages(ctx, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Service, string, error) {
		l, err := c.cs.CoreV1().Services("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return d, fmt.Errorf("collecting services: %w", c.fail(ctx, err, "list", "services", "", ""))
	}
	if err := c.put(t, evidence.PathServices, "v1", "Service", svcs); err != nil {
		return d, err
	}

	pods, err := c.windowsPods(ctx, d.Windows)
	if err != nil {
		return d, fmt.Errorf("collecting pods on Windows nodes: %w", err)
	}
	if err := c.put(t, evidence.PathPods, "v1", "Pod", pods); err != nil {
		return d, err
	}

	events, err := c.windowsEvents(ctx, d.Windows, pods)
	if err := c.optional(t, &d, evidence.PathEvents, err, func() error {
		return c.put(t, evidence.PathEvents, "v1", "Event", events)
	}); err != nil {
		return d, fmt.Errorf("collecting events: %w", err)
	}

	dss, err := c.daemonSets(ctx)
	if err := c.optional(t, &d, evidence.PathDaemonSets, err, func() error {
		return c.put(t, evidence.PathDaemonSets, "apps/v1", "DaemonSet", dss)
	}); err != nil {
		return d, fmt.Errorf("collecting daemonsets: %w", err)
	}

	if err := c.collectEndpointSlices(ctx, t, &d); err != nil {
		return d, fmt.Errorf("collecting endpointslices: %w", err)
	}
	if err := c.collectNodeLeases(ctx, t, &d); err != nil {
		return d, fmt.Errorf("collecting node leases: %w", err)
	}

	cfg, skipped, err := c.clusterConfig(ctx, nodes, svcs)
	if err != nil {
		return d, fmt.Errorf("reading the cluster's address plan: %w", err)
	}
	d.Skipped = append(d.Skipped, skipped...)
	b, err := cfg.Marshal()
	if err != nil {
		return d, err
	}
	t.Put(evidence.PathClusterConfig, b)
	d.KubeDNS, d.ServiceCIDR, d.ClusterCIDR = cfg.KubeDNS, cfg.ServiceCIDR, cfg.ClusterCIDR
	return d, nil
}

// optional stores evidence that may be denied: a 403 (or an API the server lacks) writes
// <path>.err and a Skipped entry instead of failing the whole collection.
func (c *Client) optional(t *evidence.Tree, d *Discovery, path string, err error, put func() error) error {
	switch {
	case err == nil:
		return put()
	case IsForbidden(err), IsNotFound(err):
		t.Put(path+evidence.ErrSuffix, []byte(err.Error()+"\n"))
		d.Skipped = append(d.Skipped, path+": "+err.Error())
		return nil
	}
	return err
}

func nodeInfo(n corev1.Node) NodeInfo {
	info := NodeInfo{Name: n.Name, InternalIP: decode.NodeAddress(n, corev1.NodeInternalIP)}
	if !decode.IsWindows(n) {
		return info
	}
	info.Build = n.Labels[windowsBuildLabel]
	if info.Build == "" {
		// kernelVersion is "10.0.17763.1879"; the label carries the first three parts.
		parts := strings.Split(n.Status.NodeInfo.KernelVersion, ".")
		if len(parts) >= 3 {
			info.Build = strings.Join(parts[:3], ".")
		}
	}
	return info
}

// windowsPods lists the pods on each Windows node, plus unscheduled pods that ask for
// Windows (a Pending pod blocked by the Windows taint is on no node yet).
func (c *Client) windowsPods(ctx context.Context, win []NodeInfo) ([]corev1.Pod, error) {
	var out []corev1.Pod
	for _, n := range win {
		ps, err := c.podsOn(ctx, n.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	pending, err := c.podsOn(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, p := range pending {
		if wantsWindows(p) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// podsOn lists the pods bound to a node ("" lists unscheduled pods).
func (c *Client) podsOn(ctx context.Context, node string) ([]corev1.Pod, error) {
	sel := fields.OneTermEqualSelector("spec.nodeName", node).String()
	ps, err := pages(ctx, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Pod, string, error) {
		o.FieldSelector = sel
		l, err := c.cs.CoreV1().Pods("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	return ps, c.fail(ctx, err, "list", "pods", "", "")
}

// wantsWindows: a nodeSelector, required affinity or toleration names Windows, or the
// scheduler says a Windows taint blocks it.
func wantsWindows(p corev1.Pod) bool {
	for k, v := range p.Spec.NodeSelector {
		if strings.HasSuffix(k, "/os") && strings.EqualFold(v, "windows") {
			return true
		}
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, e := range term.MatchExpressions {
				if strings.HasSuffix(e.Key, "/os") && e.Operator == corev1.NodeSelectorOpIn && containsFold(e.Values, "windows") {
					return true
				}
			}
		}
	}
	for _, tol := range p.Spec.Tolerations {
		if strings.EqualFold(tol.Value, "windows") {
			return true
		}
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && strings.Contains(strings.ToLower(cond.Message), "windows") {
			return true
		}
	}
	return false
}

func containsFold(ss []string, s string) bool {
	for _, x := range ss {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// pages follows the continue token, 500 items a page, so a large cluster never comes back
// in one huge response.
func pages[T any](ctx context.Context, page func(context.Context, metav1.ListOptions) ([]T, string, error)) ([]T, error) {
	o := metav1.ListOptions{Limit: 500}
	var out []T
	for {
		items, cont, err := page(ctx, o)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if cont == "" {
			return out, nil
		}
		o.Continue = cont
	}
}
