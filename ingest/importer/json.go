package importer

import (
	"encoding/json"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// jsonCommands map a pasted JSON command to the evidence it is.
func jsonCommands(re func(string) *regexp.Regexp) []jsonCommand {
	return []jsonCommand{
		{re(`(?i)get-hnsnetwork`), func() evidence.Ref { return evidence.HNSNetworks }},
		{re(`(?i)get-hnsendpoint`), func() evidence.Ref { return evidence.HNSEndpoints }},
		{re(`(?i)get-hnspolicylist`), func() evidence.Ref { return evidence.HNSPolicies }},
		{re(`(?i)win32_service|get-service`), func() evidence.Ref { return evidence.WindowsServices }},
		{re(`(?i)win32_process|get-process`), func() evidence.Ref { return evidence.Processes }},
		{re(`(?i)get-netroute`), func() evidence.Ref { return evidence.Routes }},
		{re(`(?i)get-netipaddress`), func() evidence.Ref { return evidence.IPAddresses }},
		{re(`(?i)image inspect|inspecti|crictl images`), func() evidence.Ref { return evidence.Images }},
		{re(`(?i)kubectl.* get (?:nodes?|no)\b`), func() evidence.Ref { return evidence.ClusterNodes }},
		{re(`(?i)kubectl.* get (?:pods?|po)\b`), func() evidence.Ref { return evidence.Pods }},
		{re(`(?i)kubectl.* get (?:services?|svc)\b`), func() evidence.Ref { return evidence.ClusterServices }},
		{re(`(?i)kubectl.* get (?:events?|ev)\b`), func() evidence.Ref { return evidence.Events }},
		{re(`(?i)kubectl.* get (?:daemonsets?|ds)\b`), func() evidence.Ref { return evidence.DaemonSets }},
		// The CNI config as the node has it (Get-Content, type, cat of a file under a cni
		// or net.d folder).
		{re(`(?i)^(?:get-content|gc|cat|type)\b.*(?:cni|net\.d)`), func() evidence.Ref { return evidence.CNIConfig }},
	}
}

func (r *reader) keyForCommand(cmd string) (evidence.Ref, bool) {
	for _, c := range r.jsonCommands {
		if c.re.MatchString(cmd) {
			return c.key(), true
		}
	}
	return nil, false
}

// jsonBlock stores pasted JSON (or kubectl YAML, as JSON) under the evidence its
// command or its kind says it is.
func (r *reader) jsonBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	var b strings.Builder
	for _, l := range p.Lines {
		b.WriteString(l.Text + "\n")
	}
	data := []byte(b.String())
	if p.Shape == paste.YAMLText {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			br.Note = "kubectl YAML that does not parse: " + err.Error()
			br.FirstLines = firstLines(p.Lines)
			return br
		}
		data = j
	}
	key, ok := r.keyForCommand(p.Command)
	if !ok {
		key, ok = keyForKind(data)
	}
	if !ok {
		br.Note = "JSON, but the paste does not show the command that printed it, so it is not clear which evidence it is: paste it with its prompt line, or save it under its evidence name"
		br.FirstLines = firstLines(p.Lines)
		return br
	}
	br.Parsed = 1
	return write(res, key, node, data, nil, br)
}

// keyForKind tells kubectl output by its kind (a List by its first item's).
func keyForKind(data []byte) (evidence.Ref, bool) {
	var doc struct {
		Kind       string
		Items      []struct{ Kind string }
		CNIVersion string          `json:"cniVersion"`
		Type       string          `json:"type"`
		Plugins    json.RawMessage `json:"plugins"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil, false
	}
	if doc.CNIVersion != "" && (doc.Type != "" || len(doc.Plugins) > 0) {
		// A CNI config or conflist: complete as printed (whitespace and line ends aside).
		return evidence.CNIConfig, true
	}
	kind := strings.TrimSuffix(doc.Kind, "List")
	if kind == "" && len(doc.Items) > 0 {
		kind = doc.Items[0].Kind
	}
	switch kind {
	case "Node":
		return evidence.ClusterNodes, true
	case "Pod":
		return evidence.Pods, true
	case "Service":
		return evidence.ClusterServices, true
	case "Event":
		return evidence.Events, true
	case "DaemonSet":
		return evidence.DaemonSets, true
	}
	return nil, false
}
