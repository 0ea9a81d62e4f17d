package importer

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// Missing is a field the evidence file needs that the paste did not show (or showed
// only in part), so the converted JSON leaves it out.
type Missing struct {
	Item  string `json:"item,omitempty"` // which record ("network nat", "service kubelet")
	Field string `json:"field"`
	Why   string `json:"why"`
}

const (
	whyAbsent    = "not in the pasted output"
	whyCollapsed = "printed as its type name (%s): the console showed no content"
	whyTruncated = "the console cut the collection short (...)"
	whyCut       = "the table cut the cell short (...)"
)

// conv turns list-view values into the JSON ConvertTo-Json would have printed, leaving
// out what the console did not show and recording it.
type conv struct {
	item    string
	missing []Missing
	intText *regexp.Regexp // a number PowerShell printed
}

func (c *conv) miss(field, why string) {
	c.missing = append(c.missing, Missing{Item: c.item, Field: field, Why: why})
}

// value converts one value; ok is false when the console did not show it.
func (c *conv) value(path string, v paste.Value) (any, bool) {
	switch v.Kind {
	case paste.Empty:
		return nil, true
	case paste.Scalar:
		switch {
		case v.Text == "True":
			return true, true
		case v.Text == "False":
			return false, true
		case c.intText.MatchString(v.Text):
			return json.Number(v.Text), true
		}
		return v.Text, true
	case paste.Collapsed:
		c.miss(path, strings.Replace(whyCollapsed, "%s", v.Text, 1))
		return nil, false
	case paste.Object:
		return c.fields(path+".", v.Fields), true
	case paste.List:
		if v.Truncated {
			c.miss(path, whyTruncated)
			return nil, false
		}
		out := make([]any, 0, len(v.Items))
		for _, it := range v.Items {
			j, ok := c.value(path+"[]", it)
			if !ok {
				return nil, false
			}
			out = append(out, j)
		}
		return out, true
	}
	return nil, false
}

func (c *conv) fields(prefix string, fs []paste.Field) map[string]any {
	m := map[string]any{}
	for _, f := range fs {
		if j, ok := c.value(prefix+f.Name, f.Value); ok {
			m[f.Name] = j
		}
	}
	return m
}

// records converts list-view records; needs are the fields the evidence's decoder
// reads, so their absence is reported.
func (r *reader) records(recs []paste.Record, label string, needs []string) ([]map[string]any, []Missing) {
	var out []map[string]any
	var missing []Missing
	for i, rec := range recs {
		c := conv{item: itemName(label, rec, i), intText: r.intText}
		out = append(out, c.fields("", rec.Fields))
		for _, n := range needs {
			if _, ok := rec.Get(n); !ok {
				c.miss(n, whyAbsent)
			}
		}
		missing = append(missing, c.missing...)
	}
	return out, missing
}

func itemName(label string, r paste.Record, i int) string {
	for _, k := range []string{"Name", "ID", "Id"} {
		if v, ok := r.Get(k); ok && v.Kind == paste.Scalar {
			return label + " " + v.Text
		}
	}
	return label + " " + strconv.Itoa(i+1)
}

// services converts a Get-Service list or table: Name, Status and, when shown,
// StartType. A table cell cut short ("kube-prox...") is not a name, so its row is left
// out rather than guessed.
func (r *reader) services(p paste.Part) ([]map[string]any, []Missing) {
	// Get-Service has no command line or nssm environment; the probes read both
	// (kube-proxy's --network-name, KUBE_NETWORK).
	needs := []string{"Name", "Status", "StartType", "PathName", "AppParameters", "AppEnvironmentExtra"}
	if p.Shape == paste.ServiceList {
		return r.records(p.List.Records, "service", needs)
	}
	var out []map[string]any
	var missing []Missing
	t := p.Table
	for _, r := range t.Rows {
		name := t.Get(r, "Name")
		item := "service " + name
		if paste.Truncated(name) || name == "" {
			missing = append(missing, Missing{Item: "line " + strconv.Itoa(r.Line), Field: "Name", Why: whyCut})
			continue
		}
		s := map[string]any{"Name": name}
		for _, col := range append(needs[1:], "DisplayName") {
			v := t.Get(r, col)
			switch {
			case !t.Has(col):
				if col != "DisplayName" {
					missing = append(missing, Missing{Item: item, Field: col, Why: whyAbsent})
				}
			case paste.Truncated(v):
				missing = append(missing, Missing{Item: item, Field: col, Why: whyCut})
			default:
				s[col] = v
			}
		}
		out = append(out, s)
	}
	return out, missing
}

// images converts a docker or crictl images table into the docker image inspect shape
// the images decoder reads: Id and RepoTags. Neither table shows the OS version.
func images(p paste.Part) ([]map[string]any, []Missing) {
	t := p.Table
	repoCol := "REPOSITORY"
	if p.Shape == paste.CrictlImages {
		repoCol = "IMAGE"
	}
	var out []map[string]any
	var missing []Missing
	for _, r := range t.Rows {
		repo, tag, id := t.Get(r, repoCol), t.Get(r, "TAG"), t.Get(r, "IMAGE ID")
		if id == "" || repo == "" {
			missing = append(missing, Missing{Item: "line " + strconv.Itoa(r.Line), Field: "IMAGE ID", Why: "the row does not line up with the header"})
			continue
		}
		img := map[string]any{"Id": id}
		if repo != "<none>" && tag != "<none>" && tag != "" {
			img["RepoTags"] = []string{repo + ":" + tag}
		} else {
			img["RepoTags"] = []string{}
		}
		out = append(out, img)
		missing = append(missing, Missing{Item: "image " + repo + ":" + tag, Field: "OsVersion", Why: whyAbsent})
	}
	return out, missing
}

// column is an evidence field and the names the console may print it under.
type column struct {
	field string
	from  []string
}

// routeColumns are routes.json's fields.
func routeColumns() []column {
	return []column{{"DestinationPrefix", nil}, {"NextHop", nil}, {"InterfaceAlias", nil},
		{"ifIndex", []string{"InterfaceIndex"}}, {"RouteMetric", nil}}
}

// addressColumns are ip-addresses.json's fields.
func addressColumns() []column {
	return []column{{"IPAddress", nil}, {"PrefixLength", nil}, {"InterfaceAlias", nil}, {"ifIndex", []string{"InterfaceIndex"}}}
}

// selected converts a list or table of flat values (Get-NetRoute, Get-NetIPAddress)
// into the fields the evidence's Select would have kept. A cell cut short is left out.
func (r *reader) selected(p paste.Part, label string, cols []column) ([]map[string]any, []Missing) {
	var out []map[string]any
	var missing []Missing
	add := func(item string, get func(string) (string, bool)) {
		m := map[string]any{}
		for _, c := range cols {
			v, ok := "", false
			for _, name := range append([]string{c.field}, c.from...) {
				if v, ok = get(name); ok {
					break
				}
			}
			switch {
			case !ok:
				missing = append(missing, Missing{Item: item, Field: c.field, Why: whyAbsent})
			case paste.Truncated(v):
				missing = append(missing, Missing{Item: item, Field: c.field, Why: whyCut})
			default:
				m[c.field] = v
			}
		}
		out = append(out, m)
	}
	for i, r := range p.List.Records {
		add(itemName(label, r, i), func(name string) (string, bool) {
			v, ok := r.Get(name)
			return v.Text, ok && v.Kind == paste.Scalar
		})
	}
	t := p.Table
	for _, r := range t.Rows {
		add(label+" "+r.Cells[0], func(name string) (string, bool) {
			return t.Get(r, name), t.Has(name)
		})
	}
	return out, missing
}

// dockerStates turns docker ps's STATUS column into the State docker's JSON has.
func dockerStates() []struct{ prefix, state string } {
	return []struct{ prefix, state string }{
		{"Up ", "running"}, {"Exited", "exited"}, {"Created", "created"}, {"Restarting", "restarting"},
		{"Removal", "removing"}, {"Dead", "dead"},
	}
}

// containers converts `docker ps -a`: ID, Names and the State its STATUS implies. Only
// with -a does the table list the stopped containers the probes look for, so a paste
// without it (or without its command line) is reported, not written.
func (r *reader) containers(p paste.Part) ([]map[string]any, []Missing, bool) {
	if !r.allFlag.MatchString(p.Command) {
		return nil, nil, false
	}
	t := p.Table
	var out []map[string]any
	var missing []Missing
	for _, r := range t.Rows {
		id, names, status := t.Get(r, "CONTAINER ID"), t.Get(r, "NAMES"), t.Get(r, "STATUS")
		if id == "" || names == "" || paste.Truncated(names) {
			missing = append(missing, Missing{Item: "line " + strconv.Itoa(r.Line), Field: "NAMES", Why: whyCut})
			continue
		}
		c := map[string]any{"ID": id, "Names": names, "Status": status}
		for _, s := range dockerStates() {
			if strings.HasPrefix(status, s.prefix) {
				c["State"] = s.state
				if strings.Contains(status, "(Paused)") {
					c["State"] = "paused"
				}
			}
		}
		if _, ok := c["State"]; !ok {
			missing = append(missing, Missing{Item: "container " + names, Field: "State", Why: "STATUS " + strconv.Quote(status) + " names no state"})
		}
		out = append(out, c)
	}
	return out, missing, true
}
