package paste

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/golden"
)

// The project's own list-view samples (testdata/shapes, see its SOURCES.md): our scenarios'
// values in the shapes real consoles print, so a fresh clone checks the parser against
// every quirk without the reference outputs kept outside the repository.

// shapeLists reads testdata/shapes/*.txt as lines.
func shapeLists(t *testing.T) map[string][]Line {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "shapes", "*.txt"))
	if err != nil || len(names) < 5 {
		t.Fatalf("testdata/shapes: %d samples, %v", len(names), err)
	}
	p := New()
	out := map[string][]Line{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = p.Lines(string(b))
	}
	return out
}

// TestShapeListViews parses each sample to its golden (testdata/shapes/golden), with
// nothing that looks like a property left over, and the same values when re-rendered
// in every wrap the real pastes show.
func TestShapeListViews(t *testing.T) {
	p := New()
	for name, lines := range shapeLists(t) {
		t.Run(name, func(t *testing.T) {
			lv := p.ParseList(lines)
			if len(lv.Records) == 0 {
				t.Fatal("no records")
			}
			for _, l := range lv.Leftover {
				if p.propLine.MatchString(l.Text) {
					t.Errorf("line %d looks like a property but was left over: %q", l.No, l.Text)
				}
			}
			want := plain(lv.Records)
			golden.AssertJSON(t, filepath.Join("testdata", "shapes", "golden", strings.TrimSuffix(name, ".txt")+".json"), want)
			for _, w := range []int{80, 100, 200} {
				for _, wrap := range []Wrap{WordWrap, LostIndent, ConsoleCut} {
					got := plain(p.ParseList(p.Lines(FormatList(lv.Records, w, wrap, 0))).Records)
					assertSame(t, name+" "+wrapName(wrap)+" at "+strconv.Itoa(w), want, got)
				}
			}
		})
	}
}
