package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// writeYAML renders the JSON envelope as YAML, for people who read `-o yaml` as kubectl
// prints it: the same fields, the same order of findings, the same schemaVersion, so a
// YAML report converts back to the JSON one (yq -o json) and `analyze` reads that.
//
// sigs.k8s.io/yaml goes through JSON, so the keys are the JSON names and the key order
// is sorted, as kubectl's YAML printer gives it. Strings are cleaned as the text report
// cleans them first: YAML's emitter escapes C0 and C1 controls but prints bidi overrides
// raw, and those reorder text where a YAML file is read.
func writeYAML(w *bufio.Writer, meta Meta, sorted []probes.Finding, opt Options) error {
	var js bytes.Buffer
	jw := bufio.NewWriter(&js)
	if err := writeJSON(jw, meta, sorted, opt); err != nil {
		return err
	}
	if err := jw.Flush(); err != nil {
		return err
	}
	dec := json.NewDecoder(&js)
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("yaml report: reading the JSON envelope back: %w", err)
	}
	clean, err := json.Marshal(cleanStrings(v))
	if err != nil {
		return fmt.Errorf("yaml report: %w", err)
	}
	out, err := yaml.JSONToYAML(clean)
	if err != nil {
		return fmt.Errorf("yaml report: converting to YAML: %w", err)
	}
	_, err = w.Write(out)
	return err
}

// cleanStrings applies clean to every string of a decoded JSON value, keys included.
func cleanStrings(v any) any {
	switch t := v.(type) {
	case string:
		return clean(t)
	case []any:
		for i := range t {
			t[i] = cleanStrings(t[i])
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[clean(k)] = cleanStrings(x)
		}
		return out
	}
	return v
}
