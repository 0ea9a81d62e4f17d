package importer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// mergeByName merges two lists of services, a later field winning.
func mergeByName(old, add []byte) ([]byte, error) {
	var a, b []map[string]any
	if err := json.Unmarshal(old, &a); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(add, &b); err != nil {
		return nil, err
	}
	for _, s := range b {
		found := false
		for _, o := range a {
			if n, _ := o["Name"].(string); strings.EqualFold(n, fmt.Sprint(s["Name"])) {
				for k, v := range s {
					o[k] = v
				}
				found = true
			}
		}
		if !found {
			a = append(a, s)
		}
	}
	out, err := json.MarshalIndent(a, "", "    ")
	return append(out, '\n'), err
}

// stillMissing drops what the merge filled in from the list of missing fields.
func stillMissing(missing []Missing, merged []byte) []Missing {
	var svcs []map[string]any
	if json.Unmarshal(merged, &svcs) != nil {
		return missing
	}
	var out []Missing
	for _, m := range missing {
		filled := false
		for _, s := range svcs {
			if _, ok := s[m.Field]; ok && "service "+fmt.Sprint(s["Name"]) == m.Item {
				filled = true
			}
		}
		if !filled {
			out = append(out, m)
		}
	}
	return out
}
