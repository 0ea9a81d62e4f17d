package paste

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// realTables are the real samples that hold a CLI table a terminal may wrap.
func realTables(t *testing.T) map[string]string {
	dir := realOutputs(t)
	out := map[string]string{}
	for _, n := range []string{"kubectl-get-nodes-wide_mixed_calico-hostprocess-containerd1.6_ws2019_healthy_08.txt",
		"kubectl-get-nodes_mixed_one-win-NotReady_kubecluster_07.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

func tableRows(p *Parser, text string) (Shape, [][]string) {
	var shape Shape
	var rows [][]string
	for _, b := range p.Split(text) {
		for _, pt := range p.Recognize(b) {
			if len(pt.Table.Rows) == 0 {
				continue
			}
			shape = pt.Shape
			for _, r := range pt.Table.Rows {
				rows = append(rows, r.Cells)
			}
		}
	}
	return shape, rows
}

// TestWrappedNodeTables: kubectl does not wrap, the terminal does. Each real node
// table cut at 80, 100, 120 and 140 columns (with the trailing spaces of each piece
// kept or lost in the copy, with and without its command line) reads back to the
// rows of the unwrapped table.
func TestWrappedNodeTables(t *testing.T) {
	p := New()
	for name, text := range realTables(t) {
		shape, want := tableRows(p, text)
		if shape != KubectlNodes || len(want) < 2 {
			t.Fatalf("%s: %s with %d rows", name, shape, len(want))
		}
		for _, w := range []int{80, 100, 120, 140} {
			for _, strip := range []bool{false, true} {
				for _, prompt := range []string{"", "user@bastion:~$ kubectl get nodes -o wide\n"} {
					wrapped := prompt + TerminalWrap(text, w, strip)
					got, rows := tableRows(p, wrapped)
					what := name + " at " + strconv.Itoa(w) + " strip " + strconv.FormatBool(strip) + " prompt " + strconv.FormatBool(prompt != "")
					if got != KubectlNodes {
						t.Errorf("%s: recognized as %q", what, got)
					}
					assertSame(t, what, want, rows)
				}
			}
		}
	}
}
