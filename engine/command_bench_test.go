//go:build unix

package engine_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The benchmarks here run the command as a user runs it: the real binary, built once
// per test process, in a process of its own, so its CPU time and peak RSS are the
// kernel's account of that process (getrusage of the waited-for child), not this
// process's. Run them one size at a time on a shared machine, e.g.
//
//	go test ./engine -run '^$' -bench 'AnalyzeCommand/1000' -benchtime 1x

// toolBinary builds cmd/wintroubleshoot once per test process.
var toolBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "wts-bench-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "wintroubleshoot")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/wintroubleshoot/wintroubleshoot/cmd/wintroubleshoot").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, out)
	}
	return bin, nil
})

// usage is what one run of the command cost.
type usage struct {
	wall, cpu time.Duration
	rssMiB    float64
	exit      int
	stdout    []byte
}

// runTool runs the binary with args in an environment without a cluster (HOME is a fresh
// folder, KUBECONFIG unset) and returns what the kernel counted for it.
func runTool(tb testing.TB, env []string, args ...string) usage {
	tb.Helper()
	bin, err := toolBinary()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"HOME=" + tb.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	u := usage{wall: time.Since(start), stdout: stdout.Bytes()}
	if cmd.ProcessState == nil {
		tb.Fatalf("%s: %v", args[0], err)
	}
	u.exit = cmd.ProcessState.ExitCode()
	if u.exit != 0 && u.exit != 1 { // 1: findings failed, which a benchmark fleet may have
		tb.Fatalf("%s exited %d: %s", args[0], u.exit, clip(stderr.String(), 2000))
	}
	u.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.rssMiB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return u
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// BenchmarkAnalyzeCommand: `wintroubleshoot analyze DIR -o json` over a synthetic fleet
// of 250, 1000 and 5000 healthy nodes (synthFleet) written to a folder, as a case folder
// arrives. It reports the wall time, CPU per node, peak RSS, and wall/cpu (how much of
// the wall the process spent waiting for a CPU: on a quiet machine near 1; analyze has no
// network, so its floor is its own CPU time).
func BenchmarkAnalyzeCommand(b *testing.B) {
	for _, n := range []int{250, 1000, 5000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			if err := writeSynthFleet(dir, n); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var runs []usage
			for range b.N {
				u := runTool(b, nil, "analyze", dir, "-o", "json")
				if !bytes.Contains(u.stdout, []byte(`"summary"`)) {
					b.Fatalf("no report: %s", clip(string(u.stdout), 500))
				}
				runs = append(runs, u)
			}
			reportUsage(b, runs, n)
		})
	}
}

// BenchmarkImportCommand: `wintroubleshoot import FILE --out DIR` of 10 and 30 MB of
// pasted console text (every recorded paste of ingest/importer/testdata/pastes, repeated), with
// its throughput and peak RSS as a multiple of the input.
func BenchmarkImportCommand(b *testing.B) {
	for _, mb := range []int{10, 30} {
		b.Run(strconv.Itoa(mb)+"MB", func(b *testing.B) {
			in := filepath.Join(b.TempDir(), "ticket.txt")
			size, err := writePaste(in, mb<<20)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var runs []usage
			for range b.N {
				runs = append(runs, runTool(b, nil, "import", in, "--out", filepath.Join(b.TempDir(), "out"), "--node", "win-1"))
			}
			u := median(runs)
			b.ReportMetric(u.wall.Seconds(), "wall-s")
			b.ReportMetric(float64(size)/(1<<20)/u.wall.Seconds(), "MB/s")
			b.ReportMetric(u.rssMiB, "peak-rss-MiB")
			b.ReportMetric(u.rssMiB*(1<<20)/float64(size), "rss/input")
			b.ReportMetric(float64(u.wall)/float64(u.cpu), "wall/cpu")
		})
	}
}

// reportUsage reports the median run of a fleet of n nodes.
func reportUsage(b *testing.B, runs []usage, n int) {
	u := median(runs)
	b.ReportMetric(u.wall.Seconds(), "wall-s")
	b.ReportMetric(float64(u.cpu.Microseconds())/1000/float64(n), "cpu-ms/node")
	b.ReportMetric(u.rssMiB, "peak-rss-MiB")
	b.ReportMetric(float64(u.wall)/float64(u.cpu), "wall/cpu")
}

// median is the run of median wall time.
func median(runs []usage) usage {
	s := append([]usage(nil), runs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j].wall < s[i].wall {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// writeSynthFleet writes synthFleet(n) under dir.
func writeSynthFleet(dir string, n int) error {
	files, err := synthFleet(n)
	if err != nil {
		return err
	}
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writePaste writes at least size bytes of pasted console output: the recorded pastes of
// the paste parser's testdata, one after another, over and over.
func writePaste(path string, size int) (int, error) {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "..", "ingest", "importer", "testdata", "pastes")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var one bytes.Buffer
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return 0, err
		}
		one.Write(b)
		one.WriteString("\n\n")
	}
	if one.Len() == 0 {
		return 0, fmt.Errorf("no pastes in %s", dir)
	}
	var all bytes.Buffer
	for all.Len() < size {
		all.Write(one.Bytes())
	}
	return all.Len(), os.WriteFile(path, all.Bytes(), 0o644)
}
