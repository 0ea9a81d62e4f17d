// Package docs holds the project's architecture map (architecture.md) and the test that
// holds the code to it.
package docs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/wintroubleshoot/wintroubleshoot/"

// floors reads architecture.md's table: package -> floor.
func floors(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| (\\d) \\| `([a-z0-9/]+)` \\|")
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := row.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[1])
			out[m[2]] = n
		}
	}
	if len(out) < 10 {
		t.Fatalf("architecture.md: read %d packages from its table", len(out))
	}
	return out
}

type goPkg struct {
	ImportPath string
	Dir        string
	Imports    []string
	GoFiles    []string
	Deps       []string
}

// list runs go list over the module, with build tags.
func list(t *testing.T, tags string, pattern ...string) []goPkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list packages with")
	}
	args := append([]string{"list", "-json=ImportPath,Dir,Imports,GoFiles,Deps", "-tags", tags}, pattern...)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p goPkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportsPointDown: every package of the module is on the map, every package on the
// map exists, and each imports only its own floor or lower ones.
func TestImportsPointDown(t *testing.T) {
	fl := floors(t)
	seen := map[string]bool{}
	for _, p := range list(t, "", "./...") {
		name := strings.TrimPrefix(p.ImportPath, module)
		seen[name] = true
		own, ok := fl[name]
		if !ok {
			t.Errorf("package %s is not on docs/architecture.md's map: add its row", name)
			continue
		}
		for _, imp := range p.Imports {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			if f, ok := fl[dep]; ok && f > own {
				t.Errorf("%s (floor %d) imports %s (floor %d): imports point down", name, own, dep, f)
			}
		}
	}
	for name := range fl {
		if !seen[name] {
			t.Errorf("docs/architecture.md names %s, which is not a package of the module", name)
		}
	}
}

// TestProductLinksNoFakes: the binary links no testing package, and built with
// -tags nodemo no fake node, fixture or scenario.
func TestProductLinksNoFakes(t *testing.T) {
	for _, tags := range []string{"", "nodemo"} {
		pkgs := list(t, tags, "./cmd/wintroubleshoot")
		for _, dep := range pkgs[0].Deps {
			if dep == "testing" || strings.HasPrefix(dep, "testing/") {
				t.Errorf("tags %q: the product links %s", tags, dep)
			}
			name, ours := strings.CutPrefix(dep, module)
			if tags == "nodemo" && ours && (strings.HasPrefix(name, "demo") || strings.HasPrefix(name, "fixtures/")) {
				t.Errorf("-tags nodemo: the product links %s", name)
			}
		}
	}
}

// tables are the functions over 100 lines that are data (a literal returned), not steps.
var tables = []string{"hardWayTraps", "anthosFailures", "rootTable", "crossLayerScenarios", "signatureWordings", "linuxScenarios", "resolvWincatLayerScenarios", "layoutScenarios"}

// TestSmallFunctionsAndHonestNames: no function outside a table is over 100 lines, and no
// file is named after a work item (an issue number, a helper's branch, "more").
func TestSmallFunctionsAndHonestNames(t *testing.T) {
	workItem := regexp.MustCompile(`(^|_)(issue\d+|w\d+[a-z]?|more)(_|\.|$)`)
	for _, p := range list(t, "", "./...") {
		entries, err := os.ReadDir(p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".go") && workItem.MatchString(e.Name()) {
				t.Errorf("%s/%s is named after a work item: name it after what it holds", p.ImportPath, e.Name())
			}
		}
		for _, f := range p.GoFiles {
			for _, long := range longFuncs(t, filepath.Join(p.Dir, f)) {
				t.Errorf("%s/%s: %s", strings.TrimPrefix(p.ImportPath, module), f, long)
			}
		}
	}
}

func longFuncs(t *testing.T, file string) []string {
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || slices.Contains(tables, fd.Name.Name) {
			continue
		}
		if n := fs.Position(fd.End()).Line - fs.Position(fd.Pos()).Line + 1; n > 100 {
			out = append(out, fmt.Sprintf("%s is %d lines: split it into named steps", fd.Name.Name, n))
		}
	}
	return out
}
