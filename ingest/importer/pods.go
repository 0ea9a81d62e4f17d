package importer

import (
	"strconv"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// describedPod is one pod of `kubectl describe pod` output, as a Pod object (the shape
// `kubectl get pod -o json` prints, holding what the describe showed) and its events.
type describedPod struct {
	pod    map[string]any
	events []map[string]any
}

// podsFromDescribe reads `kubectl describe pod[s]` the way kubectl's describe printer
// lays it out (k8s.io/kubectl/pkg/describe, PodDescriber): top-level "Key: value"
// lines, Labels and Annotations continued under their value column, the Containers
// and Init Containers sections (each container's State and Last State with their
// Reason, Exit Code, Started, Finished one level deeper), the Conditions table and the
// Events table, whose messages may go on over lines of their own.
func (r *reader) podsFromDescribe(lines []paste.Line) []describedPod {
	var out []describedPod
	var cur *describedPod
	section := ""
	var ctr, state map[string]any
	var evLines []paste.Line
	flushEvents := func() {
		if cur != nil && len(evLines) > 0 {
			cur.events = append(cur.events, r.describeEvents(cur.pod, evLines)...)
		}
		evLines = nil
	}
	for _, l := range lines {
		text := strings.TrimRight(l.Text, " ")
		if strings.TrimSpace(text) == "" {
			continue
		}
		ind := len(text) - len(strings.TrimLeft(text, " "))
		if section == "Events" && (ind > 0 || cur != nil && !r.describeKey.MatchString(text)) {
			evLines = append(evLines, l)
			continue
		}
		if m := r.describeKey.FindStringSubmatch(text); m != nil && ind == 0 {
			key, val := m[1], strings.TrimSpace(m[2])
			section, ctr, state = key, nil, nil
			if key == "Name" {
				flushEvents()
				out = append(out, describedPod{pod: map[string]any{"apiVersion": "v1", "kind": "Pod",
					"metadata": map[string]any{"name": val}, "spec": map[string]any{}, "status": map[string]any{}}})
				cur = &out[len(out)-1]
				continue
			}
			if cur == nil {
				continue
			}
			if key == "Events" {
				continue
			}
			podTop(cur.pod, key, val)
			continue
		}
		if cur == nil {
			continue
		}
		t := strings.TrimSpace(text)
		switch section {
		case "Labels", "Annotations":
			podTop(cur.pod, section, t)
		case "IPs":
			if v, ok := strings.CutPrefix(t, "IP:"); ok {
				st := sub(cur.pod, "status")
				ips, _ := st["podIPs"].([]any)
				st["podIPs"] = append(ips, map[string]any{"ip": strings.TrimSpace(v)})
			}
		case "Conditions":
			f := strings.Fields(t)
			if len(f) == 2 && f[0] != "Type" && !strings.HasPrefix(f[0], "--") {
				st := sub(cur.pod, "status")
				conds, _ := st["conditions"].([]any)
				st["conditions"] = append(conds, map[string]any{"type": f[0], "status": f[1]})
			}
		case "Containers", "Init Containers":
			list := map[string]string{"Containers": "containerStatuses", "Init Containers": "initContainerStatuses"}[section]
			ctr, state = r.containerLine(cur.pod, section, list, ind, t, ctr, state)
		}
	}
	flushEvents()
	return out
}

// containerLine reads one line of a Containers section: "  name:" starts a container,
// "    Key: value" is one of its fields, and the lines under State and Last State are
// that state's.
func (r *reader) containerLine(pod map[string]any, section, list string, ind int, t string, ctr, state map[string]any) (map[string]any, map[string]any) {
	key, val, ok := strings.Cut(t, ":")
	val = strings.TrimSpace(val)
	switch {
	case ind == 2 && ok && val == "":
		specList := map[string]string{"Containers": "containers", "Init Containers": "initContainers"}[section]
		spec := sub(pod, "spec")
		specs, _ := spec[specList].([]any)
		spec[specList] = append(specs, map[string]any{"name": key})
		c := map[string]any{"name": key, "ready": false, "restartCount": 0, "image": "", "imageID": ""}
		st := sub(pod, "status")
		cs, _ := st[list].([]any)
		st[list] = append(cs, c)
		return c, nil
	case ctr == nil || !ok:
		return ctr, state
	case ind == 4:
		state = nil
		switch key {
		case "Container ID":
			ctr["containerID"] = val
		case "Image":
			ctr["image"] = val
			spec := sub(pod, "spec")
			for _, k := range []string{"containers", "initContainers"} {
				specs, _ := spec[k].([]any)
				for _, s := range specs {
					if m, _ := s.(map[string]any); m["name"] == ctr["name"] {
						m["image"] = val
					}
				}
			}
		case "Image ID":
			ctr["imageID"] = val
		case "Ready":
			ctr["ready"] = val == "True"
		case "Restart Count":
			if n, err := strconv.Atoi(val); err == nil {
				ctr["restartCount"] = n
			}
		case "State", "Last State":
			field := map[string]string{"State": "state", "Last State": "lastState"}[key]
			kind := map[string]string{"Running": "running", "Waiting": "waiting", "Terminated": "terminated"}[val]
			if kind != "" {
				state = map[string]any{}
				ctr[field] = map[string]any{kind: state}
			}
		}
	case ind >= 6 && state != nil:
		switch key {
		case "Reason":
			state["reason"] = val
		case "Message":
			state["message"] = val
		case "Exit Code":
			if n, err := strconv.Atoi(val); err == nil {
				state["exitCode"] = n
			}
		case "Started", "Finished":
			if ts, err := time.Parse(time.RFC1123Z, val); err == nil {
				state[map[string]string{"Started": "startedAt", "Finished": "finishedAt"}[key]] = ts.UTC().Format(time.RFC3339)
			}
		}
	}
	return ctr, state
}

// podTop reads one top-level line of a pod's description.
func podTop(pod map[string]any, key, val string) {
	if val == "<none>" || val == "" {
		return
	}
	meta, spec, st := sub(pod, "metadata"), sub(pod, "spec"), sub(pod, "status")
	switch key {
	case "Namespace":
		meta["namespace"] = val
	case "Labels":
		k, v, _ := strings.Cut(val, "=")
		sub(meta, "labels")[k] = v
	case "Annotations":
		k, v, _ := strings.Cut(val, ": ")
		sub(meta, "annotations")[k] = v
	case "Node":
		// "w1/10.7.1.221": the node and its address (the pod's hostIP).
		name, ip, _ := strings.Cut(val, "/")
		spec["nodeName"] = name
		if ip != "" {
			st["hostIP"] = ip
		}
	case "Status":
		st["phase"] = val
	case "IP":
		st["podIP"] = val
	case "Service Account":
		spec["serviceAccountName"] = val
	case "Start Time":
		if ts, err := time.Parse(time.RFC1123Z, val); err == nil {
			st["startTime"] = ts.UTC().Format(time.RFC3339)
		}
	}
}

// describeEvents reads a pod's Events table (Type, Reason, Age, From, Message; before
// kubectl 1.10 FirstSeen, LastSeen, Count, From, SubObjectPath, Type, Reason, Message)
// into Event objects about the pod. A message printed over several lines continues
// on lines that are not rows.
func (r *reader) describeEvents(pod map[string]any, lines []paste.Line) []map[string]any {
	if len(lines) < 3 {
		return nil
	}
	indent := leadingSpaces(lines[0].Text)
	rows := []paste.Line{lines[0], lines[1]}
	more := map[int][]string{}
	last := -1
	for _, l := range lines[2:] {
		if f := strings.Fields(l.Text); len(f) > 0 && (f[0] == "Normal" || f[0] == "Warning") && leadingSpaces(l.Text) == indent {
			rows, last = append(rows, l), l.No
			continue
		}
		if last >= 0 {
			more[last] = append(more[last], strings.TrimRight(l.Text, " "))
		}
	}
	t, ok := r.paste.ParseTable(rows)
	if !ok || !t.Has("Type", "Reason", "Message") {
		return nil
	}
	meta, spec := sub(pod, "metadata"), sub(pod, "spec")
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	nodeName, _ := spec["nodeName"].(string)
	var out []map[string]any
	for i, row := range t.Rows {
		msg := strings.Join(append([]string{t.Get(row, "Message")}, more[row.Line]...), "\n")
		src := map[string]any{}
		comp, host, _ := strings.Cut(t.Get(row, "From"), ",")
		if comp = strings.TrimSpace(comp); comp != "" {
			src["component"] = comp
		}
		host = strings.TrimSpace(host)
		if host == "" && comp == "kubelet" && nodeName != "" {
			// Newer kubectl prints only the component; a kubelet event about a pod comes
			// from the kubelet of the pod's node.
			host = nodeName
		}
		if host != "" {
			src["host"] = host
		}
		ev := map[string]any{"apiVersion": "v1", "kind": "Event",
			"metadata":       map[string]any{"name": name + ".pasted-" + strconv.Itoa(i+1), "namespace": ns},
			"involvedObject": map[string]any{"kind": "Pod", "name": name, "namespace": ns},
			"type":           t.Get(row, "Type"), "reason": t.Get(row, "Reason"), "message": msg, "source": src}
		if n, ok := eventCount(t.Get(row, "Age"), t.Get(row, "Count")); ok {
			ev["count"] = n
		}
		out = append(out, ev)
	}
	return out
}

// eventCount reads "4s (x10 over 2m)" (an event seen 10 times) or an old Count column.
func eventCount(age, count string) (int, bool) {
	if n, err := strconv.Atoi(count); err == nil {
		return n, true
	}
	if _, rest, ok := strings.Cut(age, "(x"); ok {
		if f := strings.Fields(rest); len(f) > 0 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

func leadingSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
