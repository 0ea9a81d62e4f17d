package importer_test

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
)

// describeNodes prints nodes the way `kubectl describe node` lays them out: top-level
// keys padded to one column, multi-value keys (labels, annotations, taints) continuing
// under it, conditions as a table, addresses and system info indented two spaces.
func describeNodes(nodes []corev1.Node) string {
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteString("\n\n")
		}
		top := func(k, v string) { fmt.Fprintf(&b, "%-20s%s\n", k+":", v) }
		multi := func(k string, vals []string) {
			if len(vals) == 0 {
				top(k, "<none>")
				return
			}
			top(k, vals[0])
			for _, v := range vals[1:] {
				fmt.Fprintf(&b, "%20s%s\n", "", v)
			}
		}
		top("Name", n.Name)
		top("Roles", roles(n))
		multi("Labels", pairs(n.Labels, "="))
		multi("Annotations", pairs(n.Annotations, ": "))
		top("CreationTimestamp", n.CreationTimestamp.UTC().Format("Mon, 02 Jan 2006 15:04:05 -0700"))
		var taints []string
		for _, t := range n.Spec.Taints {
			taints = append(taints, t.ToString())
		}
		multi("Taints", taints)
		top("Unschedulable", fmt.Sprint(n.Spec.Unschedulable))
		b.WriteString("Conditions:\n")
		w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		fmt.Fprintln(w, "  Type\tStatus\tReason\tMessage")
		fmt.Fprintln(w, "  ----\t------\t------\t-------")
		for _, c := range n.Status.Conditions {
			fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.Message)
		}
		_ = w.Flush()
		b.WriteString("Addresses:\n")
		for _, a := range n.Status.Addresses {
			fmt.Fprintf(&b, "  %s:  %s\n", a.Type, a.Address)
		}
		in := n.Status.NodeInfo
		b.WriteString("System Info:\n")
		for _, kv := range [][2]string{{"Machine ID", in.MachineID}, {"Kernel Version", in.KernelVersion},
			{"OS Image", in.OSImage}, {"Operating System", in.OperatingSystem}, {"Architecture", in.Architecture},
			{"Container Runtime Version", in.ContainerRuntimeVersion}, {"Kubelet Version", in.KubeletVersion}} {
			fmt.Fprintf(&b, "  %-28s%s\n", kv[0]+":", kv[1])
		}
		if n.Spec.PodCIDR != "" {
			top("PodCIDR", n.Spec.PodCIDR)
			top("PodCIDRs", strings.Join(n.Spec.PodCIDRs, ","))
		}
		if n.Spec.ProviderID != "" {
			top("ProviderID", n.Spec.ProviderID)
		}
		top("Non-terminated Pods", "(0 in total)")
		top("Events", "<none>")
	}
	return b.String()
}

func roles(n corev1.Node) string {
	var rs []string
	for k := range n.Labels {
		if r, ok := strings.CutPrefix(k, "node-role.kubernetes.io/"); ok {
			rs = append(rs, r)
		}
	}
	sort.Strings(rs)
	if len(rs) == 0 {
		return "<none>"
	}
	return strings.Join(rs, ",")
}

func pairs(m map[string]string, sep string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+sep+v)
	}
	sort.Strings(out)
	return out
}

// wideNodes prints `kubectl get nodes -o wide`: kubectl's columns, 3 spaces apart.
func wideNodes(nodes []corev1.Node) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "NAME\tSTATUS\tROLES\tAGE\tVERSION\tINTERNAL-IP\tEXTERNAL-IP\tOS-IMAGE\tKERNEL-VERSION\tCONTAINER-RUNTIME")
	for _, n := range nodes {
		status := "Unknown"
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				status = map[corev1.ConditionStatus]string{corev1.ConditionTrue: "Ready", corev1.ConditionFalse: "NotReady"}[c.Status]
			}
		}
		if n.Spec.Unschedulable {
			status += ",SchedulingDisabled"
		}
		internal, external := "<none>", "<none>"
		for _, a := range n.Status.Addresses {
			switch a.Type {
			case corev1.NodeInternalIP:
				internal = a.Address
			case corev1.NodeExternalIP:
				external = a.Address
			}
		}
		in := n.Status.NodeInfo
		fmt.Fprintf(w, "%s\t%s\t%s\t5h36m\t%s\t%s\t%s\t%s\t%s\t%s\n", n.Name, status, roles(n), in.KubeletVersion,
			internal, external, in.OSImage, in.KernelVersion, in.ContainerRuntimeVersion)
	}
	_ = w.Flush()
	return b.String()
}
