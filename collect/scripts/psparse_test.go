package scripts

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// psSource is one script for the parser.
type psSource struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// psFinding is a parse error, a PowerShell-7-only construct, or a lint finding (Rule,
// and Why it costs on a big node; fixtures/psparse/lint.mjs).
type psFinding struct {
	Line, Column int
	Text, Kind   string
	Rule, Why    string
}

type psResult struct {
	Name   string
	Errors []psFinding
	PS7    []psFinding `json:"ps7"`
	Lint   []psFinding
}

// parsePowerShell runs fixtures/psparse (web-tree-sitter with the tree-sitter-powershell
// grammar, from the npm registry) over the sources. No PowerShell exists here, so this is
// the check that every script at least parses. Absent node or modules skip the test
// locally and fail it in CI (CI=true), where .ci/run installs them.
func parsePowerShell(t *testing.T, srcs []psSource) map[string]psResult {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "psparse"))
	if err != nil {
		t.Fatal(err)
	}
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the PowerShell parser cannot run in CI: %s (run npm ci in fixtures/psparse)", why)
		}
		t.Skipf("no PowerShell parser: %s (npm ci in fixtures/psparse)", why)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on the PATH")
	}
	for _, m := range []string{"web-tree-sitter", "tree-sitter-powershell"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", m, "package.json")); err != nil {
			missing(m + " is not installed")
		}
	}
	in, err := json.Marshal(srcs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), nodeBin, "parse.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the parser: %v", err)
	}
	// parse.mjs closes stdout when done; node's own teardown after that can take many
	// seconds (see parse.mjs), so the answer is read to its end and the process stopped.
	out, readErr := io.ReadAll(pipe)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if readErr != nil || len(out) == 0 {
		t.Fatalf("running the parser: %v\n%s", readErr, stderr.String())
	}
	var res []psResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("reading the parser's answer: %v", err)
	}
	byName := map[string]psResult{}
	for _, r := range res {
		byName[r.Name] = r
	}
	return byName
}

// TestEveryScriptParsesAsPowerShell51: each snippet, fix, the bootstrap, the helpers, the
// assembled sweep of every snippet and each fix sweep parse without error, use no
// PowerShell 7 syntax (Windows nodes run Windows PowerShell 5.1) and pass the lint of what
// is quadratic or unbounded on a big node (fixtures/psparse/lint.mjs, each rule with its
// source; an exception is a "# wts:lint-ok RULE: why" comment). The first sources are
// known-bad, so a parser or a lint rule that accepts everything fails the test.
func TestEveryScriptParsesAsPowerShell51(t *testing.T) {
	probes := []psSource{
		{"known-bad: unclosed", "if ($a { 'x' }\n"},
		{"known-bad: ??", "$a = $b ?? 'x'\n"},
		{"known-bad: &&", "git status && 'ok'\n"},
		{"known-bad: -Parallel", "1..3 | ForEach-Object -Parallel { $_ }\n"},
	}
	lintProbes := []psSource{
		{"array-append", "$a = @()\nforeach ($c in Get-NetTCPConnection) { $a += $c.LocalPort }\n"},
		// resources.json's old count: a variable piped in, inside a hashtable literal.
		{"unique", "[pscustomobject]@{ InUse = @($inRange | Select-Object -ExpandProperty LocalPort -Unique).Count }\n"},
		{"winevent", "Get-WinEvent -LogName System | Select-Object -First 10\n"},
		{"json-unbounded", "ConvertTo-Json -Depth 8 -InputObject @(Get-HnsEndpoint)\n"},
		{"encoding", "$t = Get-Content -Raw -LiteralPath 'C:\\Program Files\\containerd\\config.toml'\n"},
		{"native-exit", "$fs = (crictl imagefsinfo -o json 2>$null) -join ''\n[pscustomobject]@{ FS = $fs } | ConvertTo-Json\n"},
		{"excused, so clean", "# wts:lint-ok json-unbounded: a handful of networks\nConvertTo-Json -InputObject @(Get-HnsNetwork)\n"},
	}
	srcs := append([]psSource(nil), probes...)
	srcs = append(srcs, lintProbes...)
	srcs = append(srcs, psSource{"bootstrap", BootstrapScript}, psSource{"helpers", helpers})
	var all []Call
	for _, n := range Snippets() {
		body, err := Body(n)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, psSource{n, body})
		all = append(all, Call{Name: n})
	}
	sweep, err := Sweep(all)
	if err != nil {
		t.Fatal(err)
	}
	srcs = append(srcs, psSource{"sweep of every snippet", sweep})
	for _, n := range Fixes() {
		body, err := Body(n)
		if err != nil {
			t.Fatal(err)
		}
		fixSweep, err := Sweep([]Call{{Name: n, Params: map[string]any{"Name": []string{"kubelet"}}}})
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, psSource{n, body}, psSource{"sweep of " + n, fixSweep})
	}
	res := parsePowerShell(t, srcs)
	for _, p := range probes {
		if r := res[p.Name]; len(r.Errors)+len(r.PS7) == 0 {
			t.Errorf("the parser accepted %s: it checks nothing", p.Name)
		}
	}
	for _, p := range lintProbes {
		r := res[p.Name]
		if p.Name == "excused, so clean" {
			if len(r.Lint) != 0 {
				t.Errorf("an excused finding was reported: %+v", r.Lint)
			}
			continue
		}
		if len(r.Lint) != 1 || r.Lint[0].Rule != p.Name {
			t.Errorf("lint rule %s: the known-bad %q gave %+v", p.Name, p.Source, r.Lint)
		}
	}
	for _, s := range srcs[len(probes)+len(lintProbes):] {
		r, ok := res[s.Name]
		if !ok {
			t.Errorf("%s: not parsed", s.Name)
			continue
		}
		for _, e := range r.Errors {
			t.Errorf("%s:%d:%d: %s near %q%s", s.Name, e.Line, e.Column, e.Kind, e.Text, lineOf(s.Source, e.Line))
		}
		for _, e := range r.PS7 {
			t.Errorf("%s:%d:%d: PowerShell 7 only (%s): %q", s.Name, e.Line, e.Column, e.Kind, e.Text)
		}
		for _, e := range r.Lint {
			t.Errorf("%s:%d:%d: lint %s: %s: %q", s.Name, e.Line, e.Column, e.Rule, e.Why, e.Text)
		}
	}
}

// TestNoEmptyDriveQualifiedVariables: "$Name: text" is a parse error in PowerShell
// ("Variable reference is not valid. ':' was not followed by a valid variable name
// character"), which the tree-sitter grammar accepts; "${Name}: text" is meant.
func TestNoEmptyDriveQualifiedVariables(t *testing.T) {
	bad := regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*:([^A-Za-z0-9_:{]|$)`)
	srcs := map[string]string{"bootstrap": BootstrapScript, "prelude": prelude}
	for _, n := range append(Snippets(), Fixes()...) {
		b, err := Body(n)
		if err != nil {
			t.Fatal(err)
		}
		srcs[n] = b
	}
	for name, src := range srcs {
		for i, line := range strings.Split(src, "\n") {
			if m := bad.FindString(line); m != "" {
				t.Errorf("%s:%d: %q: write ${...} before a colon\n\t%s", name, i+1, m, line)
			}
		}
	}
}

func lineOf(src string, n int) string {
	lines := strings.Split(src, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return "\n\t" + lines[n-1]
}
