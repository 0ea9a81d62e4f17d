package importer

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// eventsBlock converts describe's Events section pasted alone (its rows, with or without
// the header) into cluster/events.json. The object the events are about is not in such a
// block: the scheduler's "Successfully assigned ns/pod to node" names a pod, "Node X
// status is now" a node; otherwise it stays unknown, and a kubelet event without a
// host is the pasted node's kubelet's.
func (r *reader) eventsBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	var events []map[string]any
	var cur map[string]any
	obj := map[string]any{}
	for _, l := range p.Lines {
		m := r.eventRow.FindStringSubmatch(l.Text)
		if m == nil {
			t := strings.TrimSpace(l.Text)
			if cur != nil && t != "" && !strings.HasPrefix(t, "----") && !strings.HasPrefix(t, "Events:") {
				cur["message"] = cur["message"].(string) + "\n" + t
			}
			continue
		}
		comp, host, _ := strings.Cut(m[4], ",")
		host = strings.TrimSpace(host)
		if host == "" && comp == "kubelet" {
			host = node
		}
		cur = map[string]any{"apiVersion": "v1", "kind": "Event", "type": m[1], "reason": m[2], "message": strings.TrimRight(m[5], " "),
			"source": map[string]any{"component": comp, "host": host}}
		if n, ok := eventCount(m[3], ""); ok {
			cur["count"] = n
		}
		if a := r.assigned.FindStringSubmatch(m[5]); a != nil {
			obj = map[string]any{"kind": "Pod", "namespace": a[1], "name": a[2]}
		} else if a := r.nodeStatus.FindStringSubmatch(m[5]); a != nil && len(obj) == 0 {
			obj = map[string]any{"kind": "Node", "name": a[1]}
		}
		events = append(events, cur)
	}
	for i, e := range events {
		e["involvedObject"] = obj
		e["metadata"] = map[string]any{"name": "pasted-event-" + strconv.Itoa(i+1)}
	}
	missing := []Missing{{Item: "events", Field: "involvedObject", Why: "an Events block pasted without its describe does not name the object"}}
	if len(obj) > 0 {
		missing = nil
	}
	br.Parsed = len(events)
	return r.writeEvents(res, node, events, missing, br)
}

// eventsTable converts `kubectl get events` ([-A]; LAST SEEN, TYPE, REASON, OBJECT,
// MESSAGE) and the layout before kubectl 1.14 (LASTSEEN, FIRSTSEEN, COUNT, NAME, KIND,
// SUBOBJECT, TYPE, REASON, SOURCE, MESSAGE).
func (r *reader) eventsTable(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	t := p.Table
	var events []map[string]any
	for i, row := range t.Rows {
		obj := map[string]any{}
		if ns := t.Get(row, "NAMESPACE"); ns != "" {
			obj["namespace"] = ns
		}
		if kind, name, ok := strings.Cut(t.Get(row, "OBJECT"), "/"); ok && kind != "" {
			obj["kind"], obj["name"] = strings.ToUpper(kind[:1])+kind[1:], name
		} else if t.Has("KIND") {
			obj["kind"], obj["name"] = t.Get(row, "KIND"), t.Get(row, "NAME")
		}
		src := map[string]any{}
		if comp, host, ok := strings.Cut(t.Get(row, "SOURCE"), ","); ok || comp != "" {
			src["component"], src["host"] = strings.TrimSpace(comp), strings.TrimSpace(host)
		} else if obj["kind"] == "Node" {
			// A node's events come from its own kubelet.
			src["host"] = obj["name"]
		}
		ev := map[string]any{"apiVersion": "v1", "kind": "Event", "type": t.Get(row, "TYPE"), "reason": t.Get(row, "REASON"),
			"message": t.Get(row, "MESSAGE"), "involvedObject": obj, "source": src,
			"metadata": map[string]any{"name": "pasted-event-" + strconv.Itoa(i+1)}}
		if n, ok := eventCount(t.Get(row, "LAST SEEN")+t.Get(row, "LASTSEEN"), t.Get(row, "COUNT")); ok {
			ev["count"] = n
		}
		events = append(events, ev)
	}
	br.Parsed = len(events)
	br.Leftover = leftovers(t.Leftover)
	var missing []Missing
	if !t.Has("SOURCE") {
		missing = append(missing, Missing{Item: "events", Field: "source.host", Why: "kubectl get events does not print which kubelet reported a pod's event"})
	}
	return r.writeEvents(res, node, events, missing, br)
}

// writeEvents adds events to those earlier blocks wrote.
func (r *reader) writeEvents(res *Result, node string, events []map[string]any, missing []Missing, br BlockReport) BlockReport {
	if len(events) == 0 {
		br.Note = "no event rows were read"
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
	out := writeJSON(res, evidence.Events, node, map[string]any{"apiVersion": "v1", "kind": "List", "items": events}, missing, br)
	if merged && out.Evidence != "" {
		out.Note = "merged with the events of the earlier blocks"
	}
	out.Recollect = evidence.Events.Meta().Command
	return out
}

// eventPatterns are what the events converters match.
func eventPatterns(re func(string) *regexp.Regexp) (row, assigned, nodeStatus *regexp.Regexp) {
	return re(`^\s*(Normal|Warning)\s{2,}(\S+)\s{2,}(\S+(?: \(x\d+ over \S+\))?)\s{2,}(\S+(?:, \S+)?)\s{2,}(.*)$`),
		re(`Successfully assigned ([\w.-]+)/([\w.-]+) to `),
		re(`^Node ([\w.-]+) status is now`)
}
