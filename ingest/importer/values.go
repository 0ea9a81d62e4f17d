package importer

import (
	"encoding/json"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// valuesBlock keeps what an output showed in the report when it is too little for the
// evidence file it would belong to: the probes would judge what the console did not
// show. Each note says what is missing, recollect the command that gives all of it.
func (r *reader) valuesBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	switch p.Shape {
	case paste.KubectlNodes:
		return r.nodeTableBlock(res, p, node, br)
	case paste.HnsDiag:
		v := hnsdiag(p.Lines)
		for _, rows := range v {
			br.Parsed += len(rows.([]map[string]any))
		}
		br.Values, br.Recollect = v, evidence.HNSNetworks.Meta().Command+"; "+evidence.HNSEndpoints.Meta().Command
		br.Note = "hnsdiag lists names and IDs only (no types, subnets or endpoint states), so it is kept in values, not written as evidence"
	case paste.NetshDump:
		v := r.netshDump(p.Lines)
		br.Parsed = len(v["routes"].([]map[string]string)) + len(v["addresses"].([]map[string]string))
		br.Values, br.Recollect = v, evidence.Routes.Meta().Command+"; "+evidence.IPAddresses.Meta().Command
		br.Note = "netsh dump holds only the persistent configuration (no DHCP or HNS routes and addresses), so it is kept in values, not written as evidence"
	case paste.NetAdapters, paste.NetIPInterfaces:
		rows := rowMaps(p, "ifIndex", "InterfaceMetric", "NlMtu")
		br.Values, br.Parsed = rows, len(rows)
		if len(p.List.Records) > 0 {
			br.Leftover = leftovers(p.List.Leftover)
		} else {
			br.Leftover = leftovers(p.Table.Leftover)
		}
		br.Note = "no evidence file holds the adapters or IP interfaces (" + string(p.Shape) + "): kept in values, next to " + evidence.FileIPAddresses + " and " + evidence.FileRoutes + " which name them"
	}
	return br
}

// describePodBlock converts `kubectl describe pod`: the pods' events become
// cluster/events.json (merged with an earlier describe's), the pods themselves values.
// A describe shows neither pod UIDs nor the other pods of the node, and pods.json is
// read as the node's whole list: HNS-ENDPOINTS would call every other pod's endpoint
// leaked, RUNTIME-LEFTOVERS every container a leftover.
func (r *reader) describePodBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	described := r.podsFromDescribe(p.Lines)
	if len(described) == 0 {
		// Only the Events section of the describe was pasted.
		br.Recognized = string(paste.EventsBlock)
		return r.eventsBlock(res, p, node, br)
	}
	var pods []map[string]any
	var events []map[string]any
	for _, d := range described {
		pods, events = append(pods, d.pod), append(events, d.events...)
	}
	br.Values, br.Parsed = nodeList(pods), len(pods)
	br.Note = "pods are kept in values: a describe shows no pod UIDs and not the node's other pods, which " + evidence.PathPods + " must list; paste the command in recollect"
	br.Recollect = evidence.Pods.Meta().Command
	if len(events) == 0 {
		return br
	}
	path := evidence.Events.Path(node)
	merged := false
	if old, ok := res.Files[path]; ok {
		var prev struct{ Items []map[string]any }
		if json.Unmarshal(old, &prev) == nil {
			events, merged = append(prev.Items, events...), true
		}
	}
	missing := []Missing{{Item: "events", Field: "events of other objects", Why: "a describe shows only the described pods' events, not the node's or other pods'"}}
	out := writeJSON(res, evidence.Events, node, map[string]any{"apiVersion": "v1", "kind": "List", "items": events}, missing, br)
	if merged && out.Evidence != "" {
		out.Note = "merged with the events of the earlier blocks; " + br.Note
	}
	out.Recollect = evidence.Pods.Meta().Command + "; " + evidence.Events.Meta().Command
	return out
}

// writeJSON encodes doc and writes it as key's evidence.
func writeJSON(res *Result, key evidence.Ref, node string, doc any, missing []Missing, br BlockReport) BlockReport {
	b, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		br.Note = "could not encode the parsed values: " + err.Error()
		return br
	}
	return write(res, key, node, append(b, '\n'), missing, br)
}

// nodeTableBlock writes `kubectl get nodes [-o wide]` as cluster/nodes.json holding what
// the columns show: the Ready condition, SchedulingDisabled, roles, versions, addresses.
// Each node carries the fields the table does not show (decode.PastedUnknown), so a probe
// that needs one skips naming the command instead of judging an empty podCIDR or an
// absent taint. Nodes an earlier describe wrote stay as they were.
func (r *reader) nodeTableBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	items, missing := nodesFromTable(p.Table)
	br.Leftover = leftovers(p.Table.Leftover)
	path := evidence.ClusterNodes.Path(node)
	merged := false
	if old, ok := res.Files[path]; ok {
		items, merged = mergeNodes(old, items)
	}
	out := writeJSON(res, evidence.ClusterNodes, node, nodeList(items), missing, br)
	out.Parsed = len(p.Table.Rows)
	if merged && out.Evidence != "" {
		out.Note = "merged with the nodes of the earlier blocks (a node they showed keeps what they showed)"
	}
	return out
}
