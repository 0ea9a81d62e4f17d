package bundle

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSnapshot1GiB bundles 1 GiB of log-like text spread over 8 nodes, as a
// snapshot of a mid-size fleet does, and compares with `tar czf` of the same folder.
// Metrics: MB/s (input bytes), peak-heap-MiB (sampled every 5 ms), peak-rss-MiB
// (VmHWM, reset before each Write), compression-x (input/output), and the same for
// tar czf with pct-of-tar-czf (our throughput as a share of tar's).
//
//	go test ./ingest/bundle -run '^$' -bench Snapshot1GiB -benchtime 1x
func BenchmarkSnapshot1GiB(b *testing.B) {
	spool := b.TempDir()
	total := generateSpool(b, spool, 8, 128<<20)
	tarSecs, tarSize := timeTarCzf(b, spool)
	for _, mode := range []struct {
		name string
		opts Options
	}{{"redacted", Options{}}, {"unredacted", Options{NoRedact: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(total)
			dst := filepath.Join(b.TempDir(), "snap.tar.gz")
			var peakHeap uint64
			var start time.Time
			for b.Loop() {
				runtime.GC()
				resetHWM()
				stop := sampleHeap(&peakHeap)
				start = time.Now()
				if _, err := Write(context.Background(), dst, DirSource(spool), mode.opts); err != nil {
					b.Fatal(err)
				}
				stop()
			}
			secs := time.Since(start).Seconds()
			b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
			if hwm := vmHWM(); hwm > 0 {
				b.ReportMetric(float64(hwm)/(1<<20), "peak-rss-MiB")
			}
			if tarSecs > 0 {
				b.ReportMetric(float64(total)/tarSecs/1e6, "tar-czf-MB/s")
				b.ReportMetric(100*tarSecs/secs, "pct-of-tar-czf")
				b.ReportMetric(float64(total)/float64(tarSize), "tar-czf-compression-x")
			}
			if st, err := os.Stat(dst); err == nil {
				b.ReportMetric(float64(total)/float64(st.Size()), "compression-x")
			}
		})
	}
}

// generateSpool writes nodes × perNode bytes of klog/logrus-like lines (timestamps,
// ids and words from a vocabulary: compressible, but not trivially), plus a few small
// JSON files per node. It returns the bytes written.
func generateSpool(b *testing.B, dir string, nodes int, perNode int64) int64 {
	b.Helper()
	logs := []struct {
		name  string
		share int64
	}{{"log-kubelet.log", 40}, {"log-kube-proxy.log", 30}, {"log-runtime.log", 30}, {"log-flanneld.log", 20}, {"log-startup.log", 8}}
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, nodes)
	for n := range nodes {
		wg.Go(func() {
			nd := filepath.Join(dir, "nodes", fmt.Sprintf("win-%d", n))
			if err := os.MkdirAll(nd, 0o755); err != nil {
				errs <- err
				return
			}
			rng := rand.New(rand.NewPCG(uint64(n), 42))
			for _, l := range logs {
				size := perNode * l.share / 128
				if err := writeLog(filepath.Join(nd, l.name), size, rng); err != nil {
					errs <- err
					return
				}
				total.Add(size)
			}
			js := `{"Name": "kubelet", "State": "Running", "StartMode": "Auto"}` + "\n"
			for _, f := range []string{"services.json", "host.json", "hns-networks.json"} {
				os.WriteFile(filepath.Join(nd, f), []byte(js), 0o644)
				total.Add(int64(len(js)))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return total.Load()
}

func writeLog(path string, size int64, rng *rand.Rand) error {
	words := strings.Fields(`SyncLoop ADD UPDATE DELETE pod container sandbox network endpoint policy
		HNS vSwitch route adding removing failed succeeded timeout retrying kube-proxy service
		backend loadbalancer VIP DSR overlay l2bridge flannel vxlan subnet lease watch reflector
		informer cache synced volume mount secret configmap image pull pause containerd runtime
		CNI ADD DEL status ready NotReady eviction manager pressure probe liveness readiness
		started killed OOM restart backoff node lease renew certificate rotation token`)
	files := []string{"kubelet.go", "pod_workers.go", "proxier.go", "hns.go", "server.go", "reflector.go", "cni.go"}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := make([]byte, 0, 512)
	t := time.Date(2025, 1, 2, 3, 0, 0, 0, time.UTC)
	for written := int64(0); written < size; {
		t = t.Add(time.Duration(rng.IntN(50_000)) * time.Microsecond)
		line = append(line[:0], "IWE"[rng.IntN(3)])
		line = t.AppendFormat(line, "0102 15:04:05.000000")
		line = append(line, "    4242 "...)
		line = append(line, files[rng.IntN(len(files))]...)
		line = append(line, ':')
		line = strconv.AppendInt(line, int64(rng.IntN(3000)), 10)
		line = append(line, `] "`...)
		for range 4 + rng.IntN(10) {
			line = append(append(line, words[rng.IntN(len(words))]...), ' ')
		}
		line = append(line, `" pod="kube-system/app-`...)
		line = strconv.AppendUint(line, rng.Uint64()%1_000_000, 36)
		line = append(line, `" ip="10.244.`...)
		line = strconv.AppendInt(line, int64(rng.IntN(256)), 10)
		line = append(line, '.')
		line = strconv.AppendInt(line, int64(rng.IntN(256)), 10)
		line = append(line, "\"\n"...)
		if int64(len(line)) > size-written {
			line = line[:size-written]
		}
		w.Write(line)
		written += int64(len(line))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// timeTarCzf times `tar czf` of dir, the baseline, and returns the seconds and the
// archive's size; 0 when tar is not installed.
func timeTarCzf(b *testing.B, dir string) (float64, int64) {
	b.Helper()
	if _, err := exec.LookPath("tar"); err != nil {
		return 0, 0
	}
	out := filepath.Join(b.TempDir(), "ref.tar.gz")
	start := time.Now()
	if msg, err := exec.Command("tar", "czf", out, "-C", dir, ".").CombinedOutput(); err != nil {
		b.Fatalf("tar czf: %v: %s", err, msg)
	}
	secs := time.Since(start).Seconds()
	st, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	return secs, st.Size()
}

// sampleHeap records the largest HeapInuse seen until stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// resetHWM resets the kernel's peak-RSS counter (Linux only; a no-op elsewhere).
func resetHWM() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// vmHWM is the peak resident set size in bytes, or 0 when unknown.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
