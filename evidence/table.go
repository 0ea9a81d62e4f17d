package evidence

import (
	"fmt"
	"strings"
)

// ContractTable is the evidence contract as a Markdown table, one row per key: where the
// file goes, how to produce it by hand, what the decoder accepts, and who collects it.
// fixtures/scenarios/README.md carries it between ContractBegin and ContractEnd; the
// scenario generator writes it there and a test fails when it is stale.
func ContractTable() string {
	var b strings.Builder
	b.WriteString("| evidence path | command that produces it | format | collected |\n|---|---|---|---|\n")
	for _, k := range All() {
		m := k.Meta()
		when := "by the probes that read it"
		if m.SnapshotOnly {
			when = "snapshot only"
		}
		if len(m.Params) > 0 {
			when += " (" + strings.Join(m.Params, ", ") + ")"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Path("<n>"), cell(m.Command), cell(m.Format), when)
	}
	return b.String()
}

// The markers around the generated table.
const (
	ContractBegin = "<!-- evidence contract: generated from evidence by go run ./fixtures/scenarios/gen -->\n"
	ContractEnd   = "<!-- end of evidence contract -->\n"
)

// cell escapes what would end a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
