package fakenode

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

// The snippets bound what a big node would return (collect/scripts/snippets): the event
// logs by -MaxEvents per log (Get-WinEvent reads newest first, so the newest are kept) and
// the HNS objects and routes by MaxObjects (Limit-WtsList keeps the first), each with a
// warning naming what was cut. A scenario records what the node holds, which may be more
// than that; the fake answers what the snippet would print, with the same warning as a
// note, so the Go side sees the node's real output at every size.

// boundedBy names, for each bounded snippet, its parameter and how it cuts.
var boundedBy = map[string]struct {
	param  string
	newest bool // keep the newest by TimeCreated per LogName (else the first items)
	what   string
}{
	"winevent-hns.json":    {"MaxEvents", true, ""},
	"winevent-scm.json":    {"MaxEvents", true, "System"},
	"hns-endpoints.json":   {"MaxObjects", false, "Get-HnsEndpoint"},
	"hns-policylists.json": {"MaxObjects", false, "Get-HnsPolicyList"},
	"routes.json":          {"MaxObjects", false, "Get-NetRoute"},
}

// limitOf is the bound a call runs with: its parameter, else the default in the
// snippet's param() block.
func limitOf(c scripts.Call, param string) int {
	switch v := c.Params[param].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	body, err := scripts.Body(c.Name)
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`\[int\]\$` + param + ` = (\d+)`).FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// bound cuts a bounded snippet's output as the snippet would and returns the warnings it
// would print. Output that is not a JSON list is left as it is.
func bound(c scripts.Call, out []byte) ([]byte, []string) {
	b, ok := boundedBy[c.Name]
	if !ok {
		return out, nil
	}
	max := limitOf(c, b.param)
	var items []json.RawMessage
	if max <= 0 || json.Unmarshal(trimBOM(out), &items) != nil {
		return out, nil
	}
	var kept []json.RawMessage
	var notes []string
	if b.newest {
		kept, notes = newestPerLog(items, max, b.what)
	} else if len(items) > max {
		kept = items[:max]
		notes = []string{fmt.Sprintf("WARNING: %s: kept the first %d of %d; the rest were cut", b.what, max, len(items))}
	}
	if notes == nil {
		return out, nil
	}
	cut, err := json.MarshalIndent(kept, "", "    ")
	if err != nil {
		return out, nil
	}
	return cut, notes
}

// newestPerLog keeps the newest max events of each log, oldest first as the snippets
// sort them, and the warning each cut log gets. log names the log when the events do not.
func newestPerLog(items []json.RawMessage, max int, log string) ([]json.RawMessage, []string) {
	type event struct {
		raw  json.RawMessage
		time string
		log  string
	}
	byLog := map[string][]event{}
	var order []string
	for _, it := range items {
		var e struct{ TimeCreated, LogName string }
		_ = json.Unmarshal(it, &e)
		if e.LogName == "" {
			e.LogName = log
		}
		if _, seen := byLog[e.LogName]; !seen {
			order = append(order, e.LogName)
		}
		byLog[e.LogName] = append(byLog[e.LogName], event{it, e.TimeCreated, e.LogName})
	}
	var kept []event
	var notes []string
	for _, name := range order {
		evs := byLog[name]
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].time > evs[j].time })
		if len(evs) >= max {
			notes = append(notes, fmt.Sprintf("WARNING: %s: kept the newest %d events since %s; older ones were cut (the log holds %d records)",
				name, max, evs[max-1].time, len(evs)))
			evs = evs[:max]
		}
		kept = append(kept, evs...)
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].time < kept[j].time })
	out := make([]json.RawMessage, len(kept))
	for i, e := range kept {
		out[i] = e.raw
	}
	return out, notes
}
