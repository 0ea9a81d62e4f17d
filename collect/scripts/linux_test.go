package scripts

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// runSh runs script as the Linux transport does (`sh -s`, the script on stdin) on this
// machine, and splits the reply.
func runSh(t *testing.T, script string) []Result {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the Linux sweep runs on Linux")
	}
	cmd := exec.CommandContext(t.Context(), "sh", "-s")
	cmd.Stdin = strings.NewReader(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -s: %v\nstderr: %s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("the script wrote on stderr outside any frame: %s", stderr.String())
	}
	results, noise, err := Split(out)
	if err != nil || len(noise) > 0 {
		t.Fatalf("split: %v, noise %q\n%s", err, noise, out)
	}
	return results
}

// TestLinuxSweepRunsHere runs the real sweep on this machine: one frame per contract
// file, in order, and what this machine has is really there.
func TestLinuxSweepRunsHere(t *testing.T) {
	script, err := LinuxSweep(LinuxFiles(), 0)
	if err != nil {
		t.Fatal(err)
	}
	results := runSh(t, script)
	var names []string
	byName := map[string]Result{}
	for _, r := range results {
		names = append(names, r.Name)
		byName[r.Name] = r
	}
	if !slices.Equal(names, LinuxFiles()) {
		t.Fatalf("frames %v, want %v", names, LinuxFiles())
	}
	var osj struct{ Kind, Hostname, Kernel, OSImage, CollectedAt string }
	if err := json.Unmarshal(byName["os.json"].Stdout, &osj); err != nil {
		t.Fatalf("os.json: %v: %s", err, byName["os.json"].Stdout)
	}
	host, _ := os.Hostname()
	if osj.Kind != "linux" || osj.Hostname != host || osj.Kernel == "" {
		t.Errorf("os.json %+v, want Kind linux and Hostname %s", osj, host)
	}
	if _, err := time.Parse(time.RFC3339, osj.CollectedAt); err != nil {
		t.Errorf("os.json CollectedAt: %v", err)
	}
	swaps, err := os.ReadFile("/proc/swaps")
	if err != nil {
		t.Fatal(err)
	}
	if r := byName["linux-swaps.txt"]; r.Failed() || !bytes.Equal(r.Stdout, swaps) {
		t.Errorf("linux-swaps.txt %+v, want /proc/swaps verbatim", r)
	}
	if _, err := exec.LookPath("ip"); err == nil {
		for _, n := range []string{"linux-ip-route.json", "linux-ip-addr.json", "linux-ip-link.json"} {
			r := byName[n]
			if r.Failed() || !json.Valid(r.Stdout) {
				t.Errorf("%s: exit %d, stderr %s, not JSON: %.200s", n, r.Exit, r.Stderr, r.Stdout)
			}
		}
	}
	// Every frame either succeeded or says why not.
	for _, r := range results {
		if r.Exit != 0 && len(bytes.TrimSpace(r.Stderr)) == 0 {
			t.Errorf("%s: exit %d with no error text", r.Name, r.Exit)
		}
	}
}

// TestLinuxCallFailures: a missing command, a missing file and a command past its limit
// each cost their own frame, with the exit code and a clear text; the rest still runs.
func TestLinuxCallFailures(t *testing.T) {
	dir := t.TempDir()
	script := LinuxPrelude() +
		"wts_call missing.txt 10 - wts-no-such-command --flag\n" +
		"wts_call nofile.txt 10 - head -c 100 " + filepath.Join(dir, "absent") + "\n" +
		"wts_call slow.txt 1 - sleep 30\n" +
		"wts_call reads-stdin.txt 10 - cat\n" +
		"wts_call partial.txt 10 partial sh -c 'echo a = 1; echo \"sysctl: cannot stat b\" >&2; exit 255'\n" +
		"wts_call note.txt 10 - sh -c 'echo out; echo warning >&2'\n" +
		"wts_end\n"
	r := runSh(t, script)
	if len(r) != 6 {
		t.Fatalf("%d frames, want 6: %+v", len(r), r)
	}
	check := func(i, exit int, stderr, notes string) {
		t.Helper()
		if r[i].Exit != exit || !strings.Contains(string(r[i].Stderr), stderr) || !strings.Contains(string(r[i].Notes), notes) {
			t.Errorf("%s: exit %d stderr %q notes %q; want exit %d, stderr with %q, notes with %q",
				r[i].Name, r[i].Exit, r[i].Stderr, r[i].Notes, exit, stderr, notes)
		}
	}
	check(0, 127, "wts-no-such-command: command not found on this node", "")
	check(1, 1, "No such file or directory", "")
	check(2, 124, "timed out after 1 s (sleep 30 did not answer)", "")
	check(3, 0, "", "") // stdin is closed: the script itself is not read by the call
	check(4, 0, "", "sysctl: cannot stat b")
	check(5, 0, "", "warning")
	if len(r[3].Stdout) != 0 {
		t.Errorf("a call reading stdin got %q", r[3].Stdout)
	}
	if string(r[4].Stdout) != "a = 1\n" || len(r[4].Stderr) != 0 {
		t.Errorf("partial: %+v", r[4])
	}
}

// TestLinuxConfigPathFromFlags: the kubelet's file is the one its --config flag names
// (either spelling, absolute or relative to its folder), read through /proc/PID; with
// no kubelet running, the default path.
func TestLinuxConfigPathFromFlags(t *testing.T) {
	dir := t.TempDir()
	want := "kind: KubeletConfiguration\n"
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	script := LinuxPrelude() + "wts_call k.yaml 10 - head -c 1048576 \"$(wts_config kubelet " + filepath.Join(dir, "default.yaml") + ")\"\nwts_end\n"
	if r := runSh(t, script); r[0].Exit != 1 || !strings.Contains(string(r[0].Stderr), "default.yaml") {
		t.Errorf("no kubelet running: %+v, want the default path, absent", r[0])
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	// A process whose program is named kubelet: sh under that name, waiting on its stdin
	// (a builtin read: no child process outlives it), with the flags after its script.
	prog := filepath.Join(dir, "kubelet")
	if err := os.Symlink(sh, prog); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"--config=" + filepath.Join(dir, "config.yaml")}, {"--v=2", "--config", "config.yaml"}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			p := exec.CommandContext(t.Context(), prog, append([]string{"-c", "while read -r _; do :; done", "kubelet"}, flags...)...)
			p.Dir = dir
			stdin, err := p.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = stdin.Close(); _ = p.Wait() })
			r := runSh(t, script)
			if r[0].Exit != 0 || string(r[0].Stdout) != want {
				t.Errorf("kubelet %v: %+v, want its --config file", flags, r[0])
			}
		})
	}
}

// TestLinuxScriptsLint: the assembled sweep and every fix parse as POSIX sh (sh -n), and
// pass shellcheck as sh where it is installed (CI installs it, and there it is required).
func TestLinuxScriptsLint(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs sh")
	}
	sweep, err := LinuxSweep(LinuxFiles(), 0)
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string]string{"sweep": sweep}
	for _, f := range LinuxFixes() {
		s, err := LinuxFix(Call{Name: f, Params: map[string]any{"Routes": []any{map[string]any{"Prefix": "10.244.3.0/24", "Via": "10.0.0.13"}}}})
		if err != nil {
			t.Fatal(err)
		}
		scripts[f] = s
	}
	if len(scripts) < 2 {
		t.Fatalf("no Linux fix scripts: %v", LinuxFixes())
	}
	shellcheck, lookErr := exec.LookPath("shellcheck")
	if lookErr != nil && os.Getenv("CI") == "true" {
		t.Fatal("shellcheck is not installed (.ci/run installs it)")
	}
	for name, s := range scripts {
		path := filepath.Join(t.TempDir(), name+".sh")
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.CommandContext(t.Context(), "sh", "-n", path).CombinedOutput(); err != nil {
			t.Errorf("%s: sh -n: %v\n%s", name, err, out)
		}
		if lookErr != nil {
			continue
		}
		// SC2016: a fix body is single-quoted for `sh -c` on purpose; its $p_ variables
		// expand in that shell, from the environment wts_param exported.
		out, err := exec.CommandContext(t.Context(), shellcheck, "-s", "sh", "-e", "SC2016", path).CombinedOutput()
		if err != nil {
			t.Errorf("%s: shellcheck: %v\n%s", name, err, out)
		}
	}
}

// TestLinuxFixParams: parameters reach the fix as data (a value with quotes, $() and a
// newline is printed back verbatim, not run); a list of objects arrives one element per
// line, fields tab-separated in key order; bad names and kinds are refused.
func TestLinuxFixParams(t *testing.T) {
	evil := `it's $(touch /tmp/wts-pwned) "x" ` + "`id`\nline2"
	routes := []any{map[string]any{"Via": "10.0.0.21", "Prefix": "10.200.2.0/24"}, map[string]any{"Prefix": "10.200.4.0/24", "Via": "10.0.0.22"}}
	s, err := LinuxFix(Call{Name: "fix-linux-add-routes", Params: map[string]any{"Note": evil, "Routes": routes, "Metric": 5}})
	if err != nil {
		t.Fatal(err)
	}
	// The same script, its ip commands replaced by printf: what the body would run.
	s = strings.Replace(s, `have=$(ip route show exact "$prefix")`, `have=`, 1)
	s = strings.Replace(s, `elif ip route add "$prefix" via "$via"; then`, `elif printf "ip %s|%s|%s\n" "$prefix" "$via" "$p_Note"; then`, 1)
	r := runSh(t, s)
	want := "ip 10.200.2.0/24|10.0.0.21|" + evil + "\nadded 10.200.2.0/24 via 10.0.0.21\nip 10.200.4.0/24|10.0.0.22|" + evil + "\nadded 10.200.4.0/24 via 10.0.0.22\n"
	if len(r) != 1 || r[0].Exit != 0 || string(r[0].Stdout) != want {
		t.Errorf("fix got %+v, want stdout %q", r, want)
	}
	calls, ok, err := ParseLinuxSweep(s)
	if err != nil || !ok || len(calls) != 1 || calls[0].Params["Note"] != evil || calls[0].Params["Metric"] != "5" ||
		calls[0].Params["Routes"] != "10.200.2.0/24\t10.0.0.21\n10.200.4.0/24\t10.0.0.22" {
		t.Errorf("parsed %+v %v %v", calls, ok, err)
	}
	for _, bad := range []map[string]any{{"a-b": "x"}, {"A": []string{"x"}}, {"1x": "y"}, {"R": []any{"a\tb"}}, {"R": []any{map[string]any{"P": []any{}}}}} {
		if _, err := LinuxFix(Call{Name: "fix-linux-add-routes", Params: bad}); err == nil {
			t.Errorf("params %v accepted", bad)
		}
	}
	if _, err := LinuxFix(Call{Name: "fix-nope"}); err == nil {
		t.Error("unknown fix accepted")
	}
	if _, err := LinuxSweep([]string{"host.json"}, 0); err == nil {
		t.Error("a Windows file accepted by the Linux sweep")
	}
}

// TestLinuxAddRoutesKeepsPresent runs the real fix against this machine's real routing
// table for a prefix it already routes (its default route): it says so and adds nothing.
func TestLinuxAddRoutesKeepsPresent(t *testing.T) {
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("no ip")
	}
	have, err := exec.CommandContext(t.Context(), ip, "route", "show", "exact", "default").Output()
	if err != nil || len(bytes.TrimSpace(have)) == 0 {
		t.Skip("this machine has no default route")
	}
	s, err := LinuxFix(Call{Name: "fix-linux-add-routes", Params: map[string]any{"Routes": []any{map[string]any{"Prefix": "default", "Via": "192.0.2.254"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := runSh(t, s)
	want := "route to default already present: " + strings.TrimRight(string(have), "\n") + "\n"
	if len(r) != 1 || r[0].Exit != 0 || string(r[0].Stdout) != want {
		t.Errorf("got %+v, want %q", r, want)
	}
}

// BenchmarkLinuxSweepHere: the real shell sweep on this machine, every contract file.
func BenchmarkLinuxSweepHere(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("the Linux sweep runs on Linux")
	}
	script, err := LinuxSweep(LinuxFiles(), 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cmd := exec.CommandContext(b.Context(), "sh", "-s")
		cmd.Stdin = strings.NewReader(script)
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Split(out); err != nil {
			b.Fatal(err)
		}
	}
}
