package foreign

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// `kubectl cluster-info dump` (k8s.io/kubectl pkg/cmd/clusterinfo/clusterinfo_dump.go @
// v0.37.2) prints, as JSON lists: nodes, then per namespace (kube-system and the
// context's, or every one with -A) events, replication-controllers, services, daemonsets,
// deployments, replicasets, pods, then each pod's logs between "==== START logs for
// container C of pod NS/P ====" and "==== END logs ... ====" lines. With
// --output-directory DIR each goes to its own file: DIR/nodes.json, DIR/NS/<kind>.json,
// DIR/NS/POD/logs.txt; without it, all of it to stdout, one document after another.
func clusterDumpCollector() collector {
	return collector{
		name:     "kubectl cluster-info dump",
		upstream: "k8s.io/kubectl pkg/cmd/clusterinfo/clusterinfo_dump.go @ v0.37.2",
		cluster:  true,
		roots: func(files map[string]bool) []string {
			if len(files) == 1 {
				for f := range files {
					if !strings.Contains(f, "/") {
						return []string{""} // stdout saved to one file; read to tell
					}
				}
			}
			var out []string
			for _, r := range withRoot(files, "nodes.json") {
				for f := range files {
					if rel, ok := under(f, r); ok && path.Base(rel) == "pods.json" && strings.Count(rel, "/") == 1 {
						out = append(out, r)
						break
					}
				}
			}
			return out
		},
		wants: func(rel string) bool {
			switch {
			case !strings.Contains(rel, "/"):
				return rel == "nodes.json" || !strings.HasSuffix(rel, ".json")
			case strings.Count(rel, "/") == 1:
				switch path.Base(rel) {
				case "events.json", "services.json", "daemonsets.json", "pods.json":
					return true
				}
			}
			return false
		},
		known: []knownFile{
			{"*/replication-controllers.json", "no probe reads them"},
			{"*/deployments.json", "no probe reads them"},
			{"*/replicasets.json", "no probe reads them"},
			{"*/*/logs.txt", "pod logs: no probe reads them"},
		},
		read: readClusterDump,
	}
}

// dumpKinds maps a dump's list kinds to our cluster files.
func dumpKinds() map[string]evidence.Ref {
	return map[string]evidence.Ref{
		"NodeList": evidence.ClusterNodes, "ServiceList": evidence.ClusterServices, "PodList": evidence.Pods,
		"EventList": evidence.Events, "DaemonSetList": evidence.DaemonSets,
	}
}

func readClusterDump(m *mapper) {
	lists := map[string][]json.RawMessage{} // kind -> items
	from := map[string][]string{}
	add := func(rel string, b []byte) bool {
		var l struct {
			Kind  string
			Items []json.RawMessage
		}
		if json.Unmarshal(b, &l) != nil || dumpKinds()[l.Kind] == nil {
			return false
		}
		lists[l.Kind] = append(lists[l.Kind], l.Items...)
		from[l.Kind] = append(from[l.Kind], rel)
		return true
	}
	stdout := false
	for _, rel := range sortedKeys(m.files) {
		t, ok := m.text(rel)
		if !ok {
			continue
		}
		if strings.HasSuffix(rel, ".json") && strings.Contains(rel, "/") || rel == "nodes.json" {
			if !add(rel, t) {
				m.tried[rel] = "not a kubectl list this reader knows"
			}
			continue
		}
		// stdout: the documents one after another, pod logs between them.
		dec := json.NewDecoder(bytes.NewReader(withoutPodLogs(t)))
		for dec.More() {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				break
			}
			if add(rel, raw) {
				stdout = true
			}
		}
	}
	m.b.Version = "--output-directory layout"
	if stdout {
		m.b.Version = "printed to stdout"
	}
	kinds := dumpKinds()
	for _, kind := range sortedKeys(lists) {
		doc := map[string]any{"apiVersion": "v1", "kind": "List", "items": lists[kind]}
		b, err := json.MarshalIndent(doc, "", "    ")
		if err != nil {
			continue
		}
		for _, rel := range from[kind] {
			m.put(kinds[kind], b, rel)
		}
	}
}

// withoutPodLogs drops the pod log sections of a dump printed to stdout.
func withoutPodLogs(t []byte) []byte {
	var out bytes.Buffer
	in := false
	for _, line := range bytes.SplitAfter(t, []byte("\n")) {
		l := bytes.TrimSpace(line)
		switch {
		case bytes.HasPrefix(l, []byte("==== START logs for container ")):
			in = true
		case bytes.Contains(l, []byte("==== END logs for container ")):
			in = false // also at the end of a log whose last line has no newline
		case !in:
			out.Write(line)
		}
	}
	return out.Bytes()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
