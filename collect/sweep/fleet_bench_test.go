//go:build unix

package sweep_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// The fleet runs in a child process (this test binary, started with fleetEnv set), so
// the CPU this process spends is the client's alone.
const (
	fleetEnv        = "WTS_SWEEP_BENCH_FLEET" // N: serve N fake nodes, print their ports, wait for stdin to close
	fleetLatency    = 20 * time.Millisecond   // per request, as a network round trip
	fleetConcurrent = 32                      // nodes swept at once, as the CLI's --concurrency default
	fleetScenario   = "healthy-sdn-l2bridge-docker"
)

func TestMain(m *testing.M) {
	if n := os.Getenv(fleetEnv); n != "" {
		os.Exit(serveFleet(n))
	}
	os.Exit(m.Run())
}

type fleetHello struct {
	Ports []int
	Node  string
}

type fleetTotals struct{ Requests, Commands int64 }

// serveFleet is the child: it serves the copies until stdin closes, then prints totals.
func serveFleet(arg string) int {
	n, err := strconv.Atoi(arg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fsys, meta, _, err := scenarios.Load(fleetScenario)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	c, err := fakenode.ServeCopies(context.Background(), fakenode.CopiesOptions{N: n, Scenario: fsys, Node: meta.Nodes[0],
		User: user, Password: password, Latency: fleetLatency})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	hello := fleetHello{Node: meta.Nodes[0]}
	for _, s := range c.Servers {
		_, p, _ := net.SplitHostPort(s.Addr())
		port, _ := strconv.Atoi(p)
		hello.Ports = append(hello.Ports, port)
	}
	out := json.NewEncoder(os.Stdout)
	_ = out.Encode(hello)
	_, _ = io.Copy(io.Discard, os.Stdin)
	req, cmds := c.Served()
	_ = out.Encode(fleetTotals{req, cmds})
	return 0
}

// BenchmarkFleetSweep sweeps 1, 200 and 1000 fake nodes (every snippet, NTLM over HTTP, a
// new connection per node as the engine dials) and reports the client's CPU per node,
// requests per node, peak heap and wall time against the latency floor.
//
// How the CPU is counted: the fake fleet runs in a child process (this test binary,
// re-executed with fleetEnv set), and getrusage(RUSAGE_SELF) counts this process's
// threads only (a child's CPU is in RUSAGE_CHILDREN, and only once it has been waited
// for), so cpu-ms/node is the client's user+system time alone: its TCP, HTTP, NTLM,
// envelope and parsing work, and its share of the kernel's loopback sends.
func BenchmarkFleetSweep(b *testing.B) {
	for _, n := range []int{1, 200, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchFleet(b, n, fleetConcurrent) })
	}
}

// BenchmarkFleetConcurrency sweeps 1000 nodes at 16, 32 and 64 at once: the latency floor
// halves with each doubling, while the CPU each window of requests needs doubles; the
// default (32) is where one core's worth of client CPU still fits in the floor.
func BenchmarkFleetConcurrency(b *testing.B) {
	for _, c := range []int{16, 32, 64} {
		b.Run(strconv.Itoa(c), func(b *testing.B) { benchFleet(b, 1000, c) })
	}
}

func benchFleet(b *testing.B, n, concurrent int) {
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
	names := scripts.Snippets()
	defer sweep.TuneGC(os.Getenv)() // as cmd/wintroubleshoot's main does; the fleet child keeps Go's defaults
	var peak atomic.Uint64
	stop := samplePeakHeap(&peak)
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	for range b.N {
		sweepAll(b, hello.Ports, names, concurrent)
	}
	wall := time.Since(start) / time.Duration(b.N)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	stop()
	_ = stdin.Close()
	var totals fleetTotals
	if err := dec.Decode(&totals); err != nil {
		b.Fatalf("the fleet's totals: %v", err)
	}
	sweeps := float64(n * b.N)
	perNode := float64(totals.Requests) / sweeps
	floor := time.Duration(float64((n+concurrent-1)/concurrent) * perNode * float64(fleetLatency))
	b.ReportMetric(float64(cpu.Microseconds())/1000/sweeps, "cpu-ms/node")
	b.ReportMetric(perNode, "requests/node")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(wall)/float64(floor), "wall/floor")
}

// sweepAll sweeps every node, concurrent at a time, each over a new transport, with the
// script built once for the run as the engine builds it (Engine.Scripts).
func sweepAll(b *testing.B, ports []int, names []string, concurrent int) {
	plans := new(sweep.Plans)
	sem := make(chan struct{}, concurrent)
	var wg sync.WaitGroup
	var failed atomic.Value
	for _, p := range ports {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			tr, err := winrm.New(transport.Config{Kind: transport.WinRM, Host: "127.0.0.1", Port: p, User: user, Password: password})
			if err != nil {
				failed.Store(err)
				return
			}
			defer tr.Close()
			plan, err := plans.For(sweep.Request{Names: names})
			if err != nil {
				failed.Store(err)
				return
			}
			files, err := plan.Run(context.Background(), tr)
			if err != nil || len(files) < len(names) {
				failed.Store(fmt.Errorf("port %d: %d files, %v", p, len(files), err))
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is this process's user and system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// samplePeakHeap records the largest live heap seen until stop is called.
func samplePeakHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
