package importer

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// crictlPods converts `crictl pods` (POD ID, CREATED, STATE, NAME, NAMESPACE, ATTEMPT,
// RUNTIME; cri-tools' table printer) into the `crictl pods -o json` shape the
// containers decoder reads. The table has no pod UIDs, and RUNTIME-LEFTOVERS matches
// sandboxes to the API's pods by UID, so the caller keeps these as values.
func crictlPods(t paste.Table) map[string]any {
	items := []any{}
	for _, r := range t.Rows {
		meta := map[string]any{"name": t.Get(r, "NAME"), "namespace": t.Get(r, "NAMESPACE")}
		if n, err := strconv.Atoi(t.Get(r, "ATTEMPT")); err == nil {
			meta["attempt"] = n
		}
		state := map[string]string{"Ready": "SANDBOX_READY", "NotReady": "SANDBOX_NOTREADY"}[t.Get(r, "STATE")]
		if state == "" {
			state = t.Get(r, "STATE")
		}
		it := map[string]any{"id": t.Get(r, "POD ID"), "metadata": meta, "state": state}
		if rt := t.Get(r, "RUNTIME"); rt != "" && rt != "(default)" {
			it["runtimeHandler"] = rt
		}
		items = append(items, it)
	}
	return map[string]any{"items": items}
}

// crictlContainers converts `crictl ps [-a]` (CONTAINER, IMAGE, CREATED, STATE, NAME,
// ATTEMPT, POD ID, POD) into the `crictl ps -o json` shape.
func crictlContainers(t paste.Table) map[string]any {
	var out []any
	for _, r := range t.Rows {
		id := t.Get(r, "CONTAINER")
		if id == "" {
			id = t.Get(r, "CONTAINER ID")
		}
		meta := map[string]any{"name": t.Get(r, "NAME")}
		if n, err := strconv.Atoi(t.Get(r, "ATTEMPT")); err == nil {
			meta["attempt"] = n
		}
		c := map[string]any{"id": id, "podSandboxId": t.Get(r, "POD ID"), "metadata": meta,
			"image": map[string]any{"image": t.Get(r, "IMAGE")}, "state": "CONTAINER_" + strings.ToUpper(t.Get(r, "STATE"))}
		if pod := t.Get(r, "POD"); pod != "" {
			c["labels"] = map[string]any{"io.kubernetes.pod.name": pod}
		}
		out = append(out, c)
	}
	return map[string]any{"containers": out}
}

// ctrImages converts `ctr images ls` (REF, TYPE, DIGEST, SIZE, PLATFORMS, LABELS) into
// the docker image inspect shape the images decoder reads: one image per digest, its
// name:tag references as RepoTags (the repo@sha256 and bare sha256 references a CRI
// pull adds are other names of the same image). ctr shows no OS version.
func ctrImages(t paste.Table) ([]map[string]any, []Missing) {
	var out []map[string]any
	byDigest := map[string]map[string]any{}
	var missing []Missing
	for _, r := range t.Rows {
		ref, digest := t.Get(r, "REF"), t.Get(r, "DIGEST")
		if ref == "" || digest == "" || paste.Truncated(ref) {
			missing = append(missing, Missing{Item: "line " + strconv.Itoa(r.Line), Field: "REF", Why: "the row does not line up with the header"})
			continue
		}
		img, ok := byDigest[digest]
		if !ok {
			img = map[string]any{"Id": digest, "RepoTags": []string{}}
			byDigest[digest] = img
			out = append(out, img)
			missing = append(missing, Missing{Item: "image " + digest, Field: "OsVersion", Why: whyAbsent})
		}
		if !strings.HasPrefix(ref, "sha256:") && !strings.Contains(ref, "@") {
			img["RepoTags"] = append(img["RepoTags"].([]string), ref)
		}
	}
	return out, missing
}

// inK8sNamespace: the kubelet's images and containers are in containerd's k8s.io
// namespace; ctr without -n lists the default namespace, which CRI does not use.
func inK8sNamespace(cmd string) bool {
	f := strings.Fields(strings.ReplaceAll(cmd, "=", " "))
	for i := 0; i+1 < len(f); i++ {
		if (f[i] == "-n" || f[i] == "--namespace") && f[i+1] == "k8s.io" {
			return true
		}
	}
	return false
}

// rowMaps is a table's rows as column -> cell maps (a list view's records as they are).
func rowMaps(p paste.Part, numeric ...string) []map[string]any {
	out := []map[string]any{}
	num := func(col, v string) any {
		for _, n := range numeric {
			if strings.EqualFold(n, col) {
				if i, err := strconv.ParseInt(v, 10, 64); err == nil {
					return i
				}
			}
		}
		return v
	}
	for _, rec := range p.List.Records {
		m := map[string]any{}
		for _, f := range rec.Fields {
			m[f.Name] = num(f.Name, f.Value.String())
		}
		out = append(out, m)
	}
	t := p.Table
	for _, row := range t.Rows {
		m := map[string]any{}
		for i, c := range t.Columns {
			// Format-Table labels a column with its unit where the property has none
			// (Get-NetIPInterface's NlMtu(Bytes)): the value goes under the property.
			if name, _, ok := strings.Cut(c, "("); ok && name != "" && strings.HasSuffix(c, ")") {
				c = name
			}
			if i < len(row.Cells) {
				m[c] = num(c, row.Cells[i])
			}
		}
		out = append(out, m)
	}
	return out
}

// runtimeBlock converts the container runtime's tables: crictl pods and ps, ctr images,
// containers and tasks. Only `ctr -n k8s.io images ls` becomes evidence (images.json);
// the rest are kept as values, each for the reason its note gives.
func (r *reader) runtimeBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	br.Parsed = len(p.Table.Rows)
	br.Leftover = leftovers(p.Table.Leftover)
	switch p.Shape {
	case paste.CrictlPods:
		br.Values, br.Recollect = crictlPods(p.Table), evidence.Containers.Meta().Command
		br.Note = "crictl pods shows no pod UIDs, and RUNTIME-LEFTOVERS tells a leftover sandbox from a live pod by UID, so it is not written as " + evidence.FileContainers + "; paste the command in recollect"
	case paste.CrictlPs:
		br.Values = crictlContainers(p.Table)
		br.Note = "containers are judged by their pod sandboxes (" + evidence.FileContainers + " holds `crictl pods -o json`): kept in values"
	case paste.CtrContainers, paste.CtrTasks:
		br.Values = rowMaps(p)
		br.Note = "ctr lists containerd's objects, not the kubelet's view of pods: kept in values"
	case paste.CtrImages:
		if !inK8sNamespace(p.Command) {
			br.Values, br.Recollect = rowMaps(p), evidence.Images.Meta().Command
			br.Note = "ctr without `-n k8s.io` (or without its command line) lists containerd's default namespace, not the kubelet's images, so it is not written as " + evidence.FileImages
			return br
		}
		doc, missing := ctrImages(p.Table)
		if doc == nil {
			doc = []map[string]any{}
		}
		b, err := json.MarshalIndent(doc, "", "    ")
		if err != nil {
			br.Note = "could not encode the parsed values: " + err.Error()
			return br
		}
		br.Parsed = len(doc)
		return write(res, evidence.Images, node, append(b, '\n'), missing, br)
	}
	return br
}
