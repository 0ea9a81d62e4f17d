package importer

import (
	"encoding/json"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// nodeList wraps Node objects the way `kubectl get nodes -o json` prints them.
func nodeList(items []map[string]any) map[string]any {
	if items == nil {
		items = []map[string]any{}
	}
	return map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
}

func node(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name},
		"spec": map[string]any{}, "status": map[string]any{}}
}

func sub(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	if v == nil {
		v = map[string]any{}
		m[key] = v
	}
	return v
}

// nodesFromTable converts `kubectl get nodes [-o wide]`: the Ready condition, the
// versions and addresses the columns show. Old kubectl printed `node/NAME`, and some
// columns only exist in newer versions; whatever is not a column stays out.
func nodesFromTable(t paste.Table) ([]map[string]any, []Missing) {
	var out []map[string]any
	var missing []Missing
	for _, r := range t.Rows {
		name := strings.TrimPrefix(t.Get(r, "NAME"), "node/")
		n := node(name)
		status, spec := sub(n, "status"), sub(n, "spec")
		parts := strings.Split(t.Get(r, "STATUS"), ",")
		ready := map[string]string{"Ready": "True", "NotReady": "False", "Unknown": "Unknown"}[parts[0]]
		if ready != "" {
			status["conditions"] = []any{map[string]any{"type": "Ready", "status": ready}}
		}
		for _, p := range parts[1:] {
			if p == "SchedulingDisabled" {
				spec["unschedulable"] = true
			}
		}
		if roles := t.Get(r, "ROLES"); roles != "" && roles != "<none>" {
			labels := map[string]any{}
			for _, role := range strings.Split(roles, ",") {
				labels["node-role.kubernetes.io/"+role] = ""
			}
			sub(n, "metadata")["labels"] = labels
		}
		info := map[string]any{}
		for col, field := range map[string]string{"VERSION": "kubeletVersion", "OS-IMAGE": "osImage",
			"KERNEL-VERSION": "kernelVersion", "CONTAINER-RUNTIME": "containerRuntimeVersion"} {
			if v := t.Get(r, col); v != "" && v != "<unknown>" {
				info[field] = v
			}
		}
		status["nodeInfo"] = info
		var addrs []any
		for col, typ := range map[string]string{"INTERNAL-IP": "InternalIP", "EXTERNAL-IP": "ExternalIP"} {
			if v := t.Get(r, col); v != "" && v != "<none>" {
				addrs = append(addrs, map[string]any{"type": typ, "address": v})
			}
		}
		if addrs != nil {
			status["addresses"] = addrs
		}
		unknown := []string{"metadata.labels", "metadata.annotations", "spec.podCIDR", "spec.taints", "spec.providerID", "status.conditions (all but Ready)"}
		if !t.Has("INTERNAL-IP") {
			unknown = append(unknown, "status.addresses")
		}
		if !t.Has("OS-IMAGE") {
			unknown = append(unknown, "status.nodeInfo")
		}
		if ready == "" {
			unknown = append(unknown, "status.conditions")
		}
		sub(n, "metadata")["annotations"] = map[string]any{decode.PastedUnknown: strings.Join(unknown, ",")}
		if strings.HasPrefix(strings.ToLower(t.Get(r, "OS-IMAGE")), "windows") {
			info["operatingSystem"] = "windows"
		}
		out = append(out, n)
		for _, f := range unknown {
			missing = append(missing, Missing{Item: "node " + name, Field: f, Why: whyAbsent})
		}
	}
	return out, missing
}

// mergeNodes adds the nodes of a table to those an earlier block wrote: a node already
// there (from a describe or JSON) keeps what it showed, a table's row only fills a node
// the earlier blocks did not have.
func mergeNodes(old []byte, items []map[string]any) ([]map[string]any, bool) {
	var prev struct {
		Items []map[string]any `json:"items"`
	}
	if json.Unmarshal(old, &prev) != nil {
		return items, false
	}
	have := map[string]bool{}
	for _, it := range prev.Items {
		if name, _ := sub(it, "metadata")["name"].(string); name != "" {
			have[name] = true
		}
	}
	out := prev.Items
	for _, it := range items {
		if name, _ := sub(it, "metadata")["name"].(string); !have[name] {
			out = append(out, it)
		}
	}
	return out, true
}

// nodesFromDescribe converts `kubectl describe node` output: one node per "Name:"
// section, with labels, annotations, taints, conditions, addresses, PodCIDR and system
// info as kubectl's describe printer lays them out.
func (r *reader) nodesFromDescribe(lines []paste.Line) ([]map[string]any, []Missing) {
	var out []map[string]any
	var missing []Missing
	var n map[string]any
	section := ""
	info := systemInfo()
	for _, l := range lines {
		text := strings.TrimRight(l.Text, " ")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if m := r.describeKey.FindStringSubmatch(text); m != nil && !strings.HasPrefix(text, " ") {
			key, val := m[1], strings.TrimSpace(m[2])
			section = key
			if key == "Name" {
				n = node(val)
				out = append(out, n)
				continue
			}
			if n == nil {
				continue
			}
			r.describeTop(n, key, val)
			continue
		}
		if n == nil || !strings.HasPrefix(text, " ") {
			continue
		}
		switch section {
		case "Labels", "Annotations", "Taints":
			r.describeTop(n, section, strings.TrimSpace(text))
		case "Conditions":
			fields := strings.Fields(text)
			if len(fields) > 0 && (fields[0] == "Type" || strings.HasPrefix(fields[0], "---")) {
				continue
			}
			if len(fields) >= 2 {
				c := map[string]any{"type": fields[0], "status": fields[1]}
				st := sub(n, "status")
				conds, _ := st["conditions"].([]any)
				st["conditions"] = append(conds, c)
			}
		case "Addresses":
			if m := r.describeSub.FindStringSubmatch(text); m != nil {
				st := sub(n, "status")
				addrs, _ := st["addresses"].([]any)
				st["addresses"] = append(addrs, map[string]any{"type": m[1], "address": strings.TrimSpace(m[2])})
			}
		case "System Info":
			if m := r.describeSub.FindStringSubmatch(text); m != nil {
				if f, ok := info[m[1]]; ok {
					sub(sub(n, "status"), "nodeInfo")[f] = strings.TrimSpace(m[2])
				}
			}
		}
	}
	for _, nd := range out {
		name, _ := sub(nd, "metadata")["name"].(string)
		if _, ok := sub(nd, "spec")["podCIDR"]; !ok {
			missing = append(missing, Missing{Item: "node " + name, Field: "spec.podCIDR", Why: whyAbsent})
		}
	}
	return out, missing
}

// systemInfo maps describe's System Info labels to nodeInfo's fields.
func systemInfo() map[string]string {
	return map[string]string{"Machine ID": "machineID", "System UUID": "systemUUID", "Boot ID": "bootID",
		"Kernel Version": "kernelVersion", "OS Image": "osImage", "Operating System": "operatingSystem",
		"Architecture": "architecture", "Container Runtime Version": "containerRuntimeVersion",
		"Kubelet Version": "kubeletVersion", "Kube-Proxy Version": "kubeProxyVersion"}
}

// describeTop reads one "Key: value" line of a node's description (or a continuation
// of Labels, Annotations or Taints).
func (r *reader) describeTop(n map[string]any, key, val string) {
	if val == "<none>" || val == "" {
		return
	}
	meta, spec := sub(n, "metadata"), sub(n, "spec")
	switch key {
	case "Labels":
		k, v, _ := strings.Cut(val, "=")
		sub(meta, "labels")[k] = v
	case "Annotations":
		k, v, _ := strings.Cut(val, ": ")
		sub(meta, "annotations")[k] = v
	case "Taints":
		if m := r.taintRe.FindStringSubmatch(val); m != nil {
			t := map[string]any{"key": m[1], "effect": m[3]}
			if m[2] != "" {
				t["value"] = m[2]
			}
			taints, _ := spec["taints"].([]any)
			spec["taints"] = append(taints, t)
		}
	case "Unschedulable":
		if val == "true" {
			spec["unschedulable"] = true
		}
	case "PodCIDR":
		spec["podCIDR"] = val
	case "PodCIDRs":
		var cidrs []any
		for _, c := range strings.Split(val, ",") {
			cidrs = append(cidrs, strings.TrimSpace(c))
		}
		spec["podCIDRs"] = cidrs
	case "ProviderID":
		spec["providerID"] = val
	}
}
