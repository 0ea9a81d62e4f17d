//go:build unix

package sweep_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkReportCommand runs `wintroubleshoot --report -o json` as a user runs it, over
// the same fake fleet as BenchmarkFleetSweep (1, 200 and 1000 copies, NTLM over HTTP, 20
// ms a request, 32 nodes at once): the real binary in a process of its own, no cluster
// (HOME is an empty folder, no KUBECONFIG), the nodes named with --node. Besides the
// transport it pays for everything the command does: targets, the sweep script, judging,
// root causes, redaction and the report. It reports the wall time against the latency
// floor, the command's CPU per node and its peak RSS (the kernel's account of the
// waited-for child: getrusage), beside the fleet's requests per node.
func BenchmarkReportCommand(b *testing.B) {
	for _, n := range []int{1, 200, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchReport(b, n) })
	}
}

func benchReport(b *testing.B, n int) {
	bin, err := toolBinary()
	if err != nil {
		b.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	child := exec.Command(self)
	child.Env = append(os.Environ(), fleetEnv+"="+strconv.Itoa(n))
	child.Stderr = os.Stderr
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = child.Wait() }()
	dec := json.NewDecoder(bufio.NewReader(stdout))
	var hello fleetHello
	if err := dec.Decode(&hello); err != nil {
		b.Fatalf("the fleet did not start: %v", err)
	}
	args := []string{"--report", "-o", "json", "--transport", "winrm", "--concurrency", strconv.Itoa(fleetConcurrent)}
	for i, p := range hello.Ports {
		args = append(args, "--node", fmt.Sprintf("win-%05d=winrm://127.0.0.1:%d", i+1, p))
	}
	home := b.TempDir()
	b.ResetTimer()
	var wall, cpu time.Duration
	var rss float64
	for range b.N {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "WTS_PASSWORD=" + password}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		start := time.Now()
		_ = cmd.Run()
		wall += time.Since(start)
		if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 || !bytes.Contains(out.Bytes(), []byte(`"summary"`)) {
			b.Fatalf("--report exited %d: %.2000s", code, errOut.String())
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = max(rss, float64(ru.Maxrss)/1024) // KiB on Linux
		}
	}
	b.StopTimer()
	_ = stdin.Close()
	var totals fleetTotals
	if err := dec.Decode(&totals); err != nil {
		b.Fatalf("the fleet's totals: %v", err)
	}
	sweeps := float64(n * b.N)
	perNode := float64(totals.Requests) / sweeps
	floor := time.Duration(float64((n+fleetConcurrent-1)/fleetConcurrent) * perNode * float64(fleetLatency))
	b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
	b.ReportMetric(float64(wall)/float64(b.N)/float64(floor), "wall/floor")
	b.ReportMetric(float64(cpu.Microseconds())/1000/sweeps, "cpu-ms/node")
	b.ReportMetric(rss, "peak-rss-MiB")
	b.ReportMetric(perNode, "requests/node")
}

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
