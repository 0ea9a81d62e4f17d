package scripts

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestCallLinesAsTheRegexp: the scan finds exactly the call lines the regexp it replaces
// finds, in real sweeps and in lines that are almost call lines.
func TestCallLinesAsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`(?m)^# wts:call ([a-z0-9][a-z0-9.-]*) ([A-Za-z0-9+/=]*)(?: ([0-9]{1,7}))?\r?$`)
	var calls []Call
	for _, n := range Snippets() {
		calls = append(calls, Call{Name: n})
	}
	calls = append(calls, Call{Name: "fix-restart-service", Params: map[string]any{"Name": []string{"kubelet"}}})
	sweep, err := Sweep(calls)
	if err != nil {
		t.Fatal(err)
	}
	odd := strings.Join([]string{
		"# wts:call a.b-c e30= 20", "# wts:call a e30=", "# wts:call a ", "# wts:call a e30= \r", "# wts:call a e30=\r",
		"# wts:call a e30=\r\r", "# wts:call A e30=", "# wts:call -a e30=", "# wts:call a e30= 12345678", "# wts:call a e30= 1234567",
		"# wts:call a e30= 1x", "# wts:call a e3*0", "x # wts:call a e30=", "#  wts:call a e30=", "# wts:call é e30=",
		"# wts:call a e30= 12 3", "# wts:call a", "# wts:call ", "# wts:call a e30= # wts:call b e30=",
	}, "\n")
	for _, s := range []string{sweep, odd, strings.ReplaceAll(odd, "\n", "\r\n"), "# wts:call a e30=", "", "\n\n"} {
		want := re.FindAllStringSubmatch(s, -1)
		got := callLines(s)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("callLines differs from the regexp:\ngot  %q\nwant %q", got, want)
		}
	}
}

// BenchmarkCallLines: the scan against the regexp it replaced, over a full sweep script.
func BenchmarkCallLines(b *testing.B) {
	var calls []Call
	for _, n := range Snippets() {
		calls = append(calls, Call{Name: n})
	}
	sweep, err := Sweep(calls)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("scan", func(b *testing.B) {
		for range b.N {
			_ = callLines(sweep)
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for range b.N {
			re := regexp.MustCompile(`(?m)^# wts:call ([a-z0-9][a-z0-9.-]*) ([A-Za-z0-9+/=]*)(?: ([0-9]{1,7}))?\r?$`)
			_ = re.FindAllStringSubmatch(sweep, -1)
		}
	})
}
