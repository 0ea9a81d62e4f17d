package engine_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// synthScenario is the recorded node every synthetic node copies: a healthy Windows node
// on flannel VXLAN (overlay needs no host route per other node, so a node's evidence stays
// the same size however big the fleet), each copy with its own name, podCIDR, InternalIP
// and pods, so the fleet judges as a real healthy fleet would.
const synthScenario = "healthy-containerd-overlay"

// synthPodsPerNode is how many workload pods each synthetic node runs: cluster/pods.json
// grows with the fleet as a real cluster's does.
const synthPodsPerNode = 3

// synthFleet builds an evidence tree of n Windows nodes from synthScenario: every file of
// its node copied under a new node name, with the node's podCIDR and InternalIP replaced
// by the copy's own, and the cluster files (nodes.json, pods.json, events.json) holding
// every copy, as a cluster of that size lists them. The returned map is path -> bytes.
func synthFleet(n int) (map[string][]byte, error) {
	fsys, meta, _, err := scenarios.Load(synthScenario)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", synthScenario, err)
	}
	src := meta.Nodes[0]
	out := map[string][]byte{}
	nodeFiles := map[string][]byte{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(p, "nodes/"+src+"/"):
			nodeFiles[strings.TrimPrefix(p, "nodes/"+src+"/")] = b
		case strings.HasPrefix(p, "cluster/"):
			out[p] = b
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", synthScenario, err)
	}
	var copies []synthNode
	for i := range n {
		copies = append(copies, synthNode{
			name: fmt.Sprintf("win-%05d", i+1),
			// 10.128.0.0/24 up: clear of the services (10.96.0.0/12) and the node network.
			podPrefix: fmt.Sprintf("10.%d.%d.", 128+i/256, i%256),
			nodeIP:    fmt.Sprintf("10.0.%d.%d", 10+i/250, 1+i%250),
		})
	}
	for _, c := range copies {
		r := c.replacer(src)
		for name, b := range nodeFiles {
			out[path.Join("nodes", c.name, name)] = []byte(r.Replace(string(b)))
		}
	}
	for _, f := range []string{"cluster/nodes.json", "cluster/pods.json"} {
		b, err := synthList(out[f], src, copies, f == "cluster/pods.json")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[f] = b
	}
	out["cluster/cluster-config.json"] = []byte(strings.ReplaceAll(string(out["cluster/cluster-config.json"]), srcClusterCIDR, synthClusterCIDR))
	return out, nil
}

// The recorded node's own addresses, as its files spell them, and the cluster range the
// copies' podCIDRs fit in (a /16 holds 256 nodes' /24s; the fleet needs more).
const (
	srcPodPrefix, srcNodeIP          = "10.244.2.", "10.0.10.41"
	srcClusterCIDR, synthClusterCIDR = "10.244.0.0/16", "10.0.0.0/8"
)

type synthNode struct{ name, podPrefix, nodeIP string }

// replacer rewrites the recorded node's name and addresses as this copy's.
func (c synthNode) replacer(src string) *strings.Replacer {
	return strings.NewReplacer(src, c.name, srcPodPrefix, c.podPrefix, srcNodeIP, c.nodeIP, srcClusterCIDR, synthClusterCIDR)
}

// synthList replaces the items of a List that belong to the source node (the Node
// itself, or pods on it) with one copy per synthetic node (pods: synthPodsPerNode each,
// named apart), keeping every other item.
func synthList(b []byte, src string, copies []synthNode, pods bool) ([]byte, error) {
	var list map[string]any
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, err
	}
	items, _ := list["items"].([]any)
	var kept []any
	var tmpl []byte
	for _, it := range items {
		raw, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		if (pods && strings.Contains(string(raw), `"nodeName":"`+src+`"`)) ||
			(!pods && strings.Contains(string(raw), `"name":"`+src+`"`)) {
			tmpl = raw
			continue
		}
		kept = append(kept, it)
	}
	if tmpl == nil {
		return nil, fmt.Errorf("no item of %s", src)
	}
	per := 1
	if pods {
		per = synthPodsPerNode
	}
	for _, c := range copies {
		for k := range per {
			s := c.replacer(src).Replace(string(tmpl))
			if pods {
				s = strings.ReplaceAll(s, c.podPrefix+"10", fmt.Sprintf("%s%d", c.podPrefix, 10+k))
				s = strings.Replace(s, `"name":"`, fmt.Sprintf(`"name":"p%d-`, k), 1)
			}
			var v any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				return nil, err
			}
			kept = append(kept, v)
		}
	}
	list["items"] = kept
	return json.MarshalIndent(list, "", "  ")
}
