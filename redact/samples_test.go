package redact

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/cmd/generate/config/utils"
	"github.com/zricethezav/gitleaks/v8/cmd/generate/secrets"
)

// leakSample is one of gitleaks' own true positives for a rule.
type leakSample struct {
	rule, text string
}

// sampleStats says how many of gitleaks' true positives could be read.
type sampleStats struct {
	funcs, literal, generated, skipped int
}

// gitleaksSamples reads the true positives gitleaks ships with its rules. They are not
// data in the module but the tps lists in the Go source that generates its default
// config (cmd/generate/config/rules/*.go, each rule's `tps := ...` and `tps =
// append(tps, ...)`, which gitleaks' own Validate checks). This reads that source from
// the module cache (the version go.mod requires) as data, with go/ast, and evaluates
// each element: string literals and their concatenations as they are, and the calls
// gitleaks uses to make samples (secrets.NewSecret, utils.GenerateSampleSecrets,
// utils.AlphaNumeric, ..., fmt.Sprintf) by calling those very functions. Elements that
// refer to anything else (a local variable, a loop) are skipped and counted.
func gitleaksSamples(t *testing.T) ([]leakSample, sampleStats) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", "github.com/zricethezav/gitleaks/v8").Output()
	if err != nil {
		t.Fatalf("finding the gitleaks module: %v", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("finding the gitleaks module: %v (%s)", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(mod.Dir, "cmd", "generate", "config", "rules", "*.go"))
	sort.Strings(files)
	var all []leakSample
	var st sampleStats
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", f, err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			id := ruleID(fn)
			if id == "" {
				continue
			}
			st.funcs++
			for _, s := range tpsOf(fn, &st) {
				all = append(all, leakSample{rule: id, text: s})
			}
		}
	}
	return all, st
}

// ruleID is the RuleID a rule function sets (the first one: a function making several
// rules shares its samples among them, which the oracle sorts out).
func ruleID(fn *ast.FuncDecl) string {
	id := ""
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || id != "" {
			return id == ""
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "RuleID" {
			if v, err := evalString(kv.Value); err == nil {
				id = v
			}
		}
		return true
	})
	return id
}

// tpsOf evaluates the assignments to tps in a rule function.
func tpsOf(fn *ast.FuncDecl, st *sampleStats) []string {
	var out []string
	add := func(e ast.Expr, spread bool) {
		if spread {
			vs, err := evalStrings(e)
			if err != nil {
				st.skipped++
				return
			}
			st.generated += len(vs)
			out = append(out, vs...)
			return
		}
		if cl, ok := e.(*ast.CompositeLit); ok {
			for _, el := range cl.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value // map[string]string{path: sample}
				}
				v, err := evalString(el)
				if err != nil {
					st.skipped++
					continue
				}
				if _, lit := el.(*ast.BasicLit); lit {
					st.literal++
				} else {
					st.generated++
				}
				out = append(out, v)
			}
			return
		}
		if vs, err := evalStrings(e); err == nil {
			st.generated += len(vs)
			out = append(out, vs...)
			return
		}
		v, err := evalString(e)
		if err != nil {
			st.skipped++
			return
		}
		if _, lit := e.(*ast.BasicLit); lit {
			st.literal++
		} else {
			st.generated++
		}
		out = append(out, v)
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return true
		}
		if id, ok := as.Lhs[0].(*ast.Ident); !ok || id.Name != "tps" {
			return true
		}
		rhs := as.Rhs[0]
		if call, ok := rhs.(*ast.CallExpr); ok {
			if fid, ok := call.Fun.(*ast.Ident); ok && fid.Name == "append" && len(call.Args) > 1 {
				for i, a := range call.Args[1:] {
					add(a, call.Ellipsis.IsValid() && i == len(call.Args)-2)
				}
				return true
			}
		}
		add(rhs, false)
		return true
	})
	return out
}

// evalStrings evaluates a call that yields several samples.
func evalStrings(e ast.Expr) ([]string, error) {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return nil, fmt.Errorf("not a call")
	}
	switch callName(call) {
	case "utils.GenerateSampleSecrets":
		args, err := evalArgs(call.Args)
		if err != nil || len(args) != 2 {
			return nil, fmt.Errorf("GenerateSampleSecrets: %v", err)
		}
		return utils.GenerateSampleSecrets(args[0], args[1]), nil
	}
	return nil, fmt.Errorf("not a list")
}

// evalString evaluates a string expression made of literals and gitleaks' generators.
func evalString(e ast.Expr) (string, error) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", fmt.Errorf("not a string")
		}
		return strconv.Unquote(x.Value)
	case *ast.ParenExpr:
		return evalString(x.X)
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", fmt.Errorf("operator %s", x.Op)
		}
		a, err := evalString(x.X)
		if err != nil {
			return "", err
		}
		b, err := evalString(x.Y)
		return a + b, err
	case *ast.CallExpr:
		return evalCall(x)
	}
	return "", fmt.Errorf("cannot evaluate %T", e)
}

func evalCall(call *ast.CallExpr) (string, error) {
	args, err := evalArgs(call.Args)
	if err != nil {
		return "", err
	}
	one := func(f func(string) string) (string, error) {
		if len(args) != 1 {
			return "", fmt.Errorf("%s: %d arguments", callName(call), len(args))
		}
		return f(args[0]), nil
	}
	switch callName(call) {
	case "secrets.NewSecret":
		return one(secrets.NewSecret)
	case "utils.GenerateSampleSecret":
		if len(args) != 2 {
			return "", fmt.Errorf("GenerateSampleSecret: %d arguments", len(args))
		}
		return utils.GenerateSampleSecret(args[0], args[1]), nil
	case "utils.Numeric":
		return one(utils.Numeric)
	case "utils.Hex":
		return one(utils.Hex)
	case "utils.AlphaNumeric":
		return one(utils.AlphaNumeric)
	case "utils.AlphaNumericExtendedShort":
		return one(utils.AlphaNumericExtendedShort)
	case "utils.AlphaNumericExtended":
		return one(utils.AlphaNumericExtended)
	case "utils.AlphaNumericExtendedLong":
		return one(utils.AlphaNumericExtendedLong)
	case "utils.Hex8_4_4_4_12":
		return utils.Hex8_4_4_4_12(), nil
	case "fmt.Sprintf":
		if len(args) == 0 {
			return "", fmt.Errorf("Sprintf without a format")
		}
		rest := make([]any, len(args)-1)
		for i, a := range args[1:] {
			rest[i] = a
		}
		return fmt.Sprintf(args[0], rest...), nil
	case "strings.Repeat":
		if len(call.Args) != 2 {
			return "", fmt.Errorf("Repeat")
		}
		return "", fmt.Errorf("Repeat with a count")
	}
	return "", fmt.Errorf("unknown call %s", callName(call))
}

func evalArgs(in []ast.Expr) ([]string, error) {
	out := make([]string, len(in))
	for i, a := range in {
		v, err := evalString(a)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func callName(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		if id, ok := call.Fun.(*ast.Ident); ok {
			return id.Name
		}
		return ""
	}
	if pkg, ok := sel.X.(*ast.Ident); ok {
		return pkg.Name + "." + sel.Sel.Name
	}
	return ""
}
