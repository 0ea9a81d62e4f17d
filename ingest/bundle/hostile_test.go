package bundle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// hostileHeapBound is the peak heap reading any hostile input may take: the reader
// keeps at most memBudget (32 MiB) of small files and an index of at most MaxEntries
// entries, plus the file a probe is reading (a log's 32 MiB tail at most) and the
// garbage of the files read before it; the runtime's memory limit is set to
// hostileGCLimit so the collector works to keep that garbage small.
const (
	hostileHeapBound = 192 << 20
	hostileGCLimit   = 128 << 20
	// hostileRSSBound bounds the test process's peak resident memory (VmHWM, Linux),
	// building the inputs included: the memory limit the process holds itself to.
	hostileRSSBound = 384 << 20
)

// hostileCase is one hostile input and how reading it must end: with an error saying
// want, or (want "") opened, with the refused files failing with a *LimitError and every
// other file read within its cap.
type hostileCase struct {
	name    string
	folder  bool
	lim     Limits
	build   func(tb testing.TB, dir string) string
	want    string
	refused []string
}

// small are limits a test can exceed cheaply.
func small() Limits {
	l := DefaultLimits()
	l.MaxTotal, l.MaxLog, l.MaxNodeJSON, l.MaxEntries, l.MaxNodes = 64<<20, 1<<20, 1<<20, 10_000, 100
	return l
}

func bundleCase(name string, lim Limits, want string, fn func(b *tarBuild)) hostileCase {
	return hostileCase{name: name, lim: lim, want: want, build: func(tb testing.TB, dir string) string {
		p := filepath.Join(dir, "hostile.tar.gz")
		fn(newTarBuild(tb, p))
		return p
	}}
}

func hostileCases() []hostileCase {
	def := DefaultLimits()
	cases := []hostileCase{
		bundleCase("host.json declares 8 GiB", def, "declares 8589934592 bytes", func(b *tarBuild) {
			b.raw(headerOnly(b.tb, "nodes/win-1/host.json", 8<<30))
			b.truncate()
		}),
		bundleCase("PAX sparse host.json of 8 GiB", def, "sparse files are not allowed", func(b *tarBuild) {
			b.raw(paxSparse(b.tb, "nodes/win-1/host.json", 8<<30))
			b.close(0)
		}),
		bundleCase("old GNU sparse entry", def, "sparse files are not allowed", func(b *tarBuild) {
			b.raw(oldGNUSparse(b.tb, "nodes/win-1/host.json"))
			b.close(0)
		}),
		bundleCase("unlisted 10 GiB sparse entry", def, "sparse files are not allowed", func(b *tarBuild) {
			b.file("nodes/win-1/host.json", 2, strings.NewReader("{}"))
			b.raw(paxSparse(b.tb, "nodes/win-1/unlisted.log", 10<<30))
			b.close(0)
		}),
		bundleCase("gzip bomb past the total", small(), "more than 67108864 bytes uncompressed", func(b *tarBuild) {
			for i := range 3 {
				b.file(fmt.Sprintf("nodes/win-1/log-%d.log", i), 30<<20, nil)
			}
			b.close(0)
		}),
		bundleCase("bomb after the last entry", small(), "after the last entry", func(b *tarBuild) {
			b.file("nodes/win-1/host.json", 2, strings.NewReader("{}"))
			b.close(100 << 20)
		}),
		bundleCase("tree 5,000 folders deep", def, "levels deep", func(b *tarBuild) {
			name := ""
			for range 5000 {
				name += "d/"
				b.dir(name)
			}
			b.close(0)
		}),
		bundleCase("name of 4,000 bytes", def, "a name of 4000 bytes", func(b *tarBuild) {
			b.file("nodes/win-1/"+strings.Repeat("n", 4000-len("nodes/win-1/")), 1, nil)
			b.close(0)
		}),
		bundleCase("6,000 node folders", def, "more than 5000 node folders", func(b *tarBuild) {
			for i := range 6000 {
				b.file(fmt.Sprintf("nodes/n-%d/host.json", i), 2, strings.NewReader("{}"))
			}
			b.close(0)
		}),
		bundleCase("more entries than the cap", small(), "more than 10000 entries", func(b *tarBuild) {
			for i := range 10_001 {
				b.file(fmt.Sprintf("cluster/f-%d.json", i), 2, strings.NewReader("{}"))
			}
			b.close(0)
		}),
		bundleCase("node folder WIN_1", def, "not a Kubernetes node name", func(b *tarBuild) {
			b.file("nodes/WIN_1/host.json", 2, strings.NewReader("{}"))
			b.close(0)
		}),
		bundleCase("node folder a..b", def, "not a Kubernetes node name", func(b *tarBuild) {
			b.dir("nodes/a..b/")
			b.close(0)
		}),
	}
	c := bundleCase("processes.json of 40 MiB", def, "", func(b *tarBuild) {
		b.file("nodes/win-1/host.json", 2, strings.NewReader("{}"))
		b.file("nodes/win-1/processes.json", 40<<20, nil)
		b.close(0)
	})
	c.refused = []string{"nodes/win-1/processes.json"}
	cases = append(cases, c,
		bundleCase("logs over the cap are tailed", small(), "", func(b *tarBuild) {
			b.file("nodes/win-1/kubelet.log", 2<<20, nil)     // kept in memory
			b.file("nodes/win-1/log-runtime.log", 6<<20, nil) // read again on open
			b.close(0)
		}),
		bundleCase("memory budget filled with small files", def, "", func(b *tarBuild) {
			for i := range 30_000 {
				b.file(fmt.Sprintf("cluster/f-%d.json", i), 4<<10, nil)
			}
			b.close(0)
		}),
	)
	return append(cases, folderCases()...)
}

// folderCases are hostile evidence folders (analyze DIR).
func folderCases() []hostileCase {
	folder := func(name, want string, fn func(tb testing.TB, dir string)) hostileCase {
		return hostileCase{name: name, folder: true, lim: DefaultLimits(), want: want, build: func(tb testing.TB, dir string) string {
			root := filepath.Join(dir, "evidence")
			mkdir(tb, filepath.Join(root, "nodes", "win-1"))
			fn(tb, root)
			return root
		}}
	}
	outside := func(tb testing.TB, root string) string {
		p := filepath.Join(filepath.Dir(root), "kubeconfig")
		writeText(tb, p, "users:\n- user:\n    token: OUTSIDE-BEARER-TOKEN\n")
		return p
	}
	wide := folder("150 node folders, 100 allowed", "more than 100 node folders", func(tb testing.TB, root string) {
		for i := range 150 {
			mkdir(tb, filepath.Join(root, "nodes", fmt.Sprintf("n-%d", i)))
		}
	})
	wide.lim = small()
	big := folder("processes.json of 8 GiB (sparse)", "", func(tb testing.TB, root string) {
		sparseFile(tb, filepath.Join(root, "nodes", "win-1", "processes.json"), 8<<30)
	})
	big.refused = []string{"nodes/win-1/processes.json"}
	return []hostileCase{
		folder("host.json links to a kubeconfig outside", "leads out of the evidence folder", func(tb testing.TB, root string) {
			symlink(tb, outside(tb, root), filepath.Join(root, "nodes", "win-1", "host.json"))
		}),
		folder("host.json links out by a relative path", "leads out of the evidence folder", func(tb testing.TB, root string) {
			outside(tb, root)
			symlink(tb, "../../../kubeconfig", filepath.Join(root, "nodes", "win-1", "host.json"))
		}),
		folder("cluster/ links to a folder outside", "leads out of the evidence folder", func(tb testing.TB, root string) {
			outside(tb, root)
			symlink(tb, filepath.Dir(root), filepath.Join(root, "cluster"))
		}),
		big,
		folder("kubelet.log of 8 GiB (sparse) is tailed", "", func(tb testing.TB, root string) {
			sparseFile(tb, filepath.Join(root, "nodes", "win-1", "kubelet.log"), 8<<30)
		}),
		folder("node folder Win_1", "not a Kubernetes node name", func(tb testing.TB, root string) {
			mkdir(tb, filepath.Join(root, "nodes", "Win_1"))
		}),
		wide,
	}
}

// run opens the input and reads every file in it as a probe would.
func (c hostileCase) run(p string) (refused []string, err error) {
	var fsys fs.FS
	if c.folder {
		f, err := OpenFolderLimits(p, c.lim)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		fsys = f.FS()
	} else {
		b, err := OpenLimits(context.Background(), p, c.lim)
		if err != nil {
			return nil, err
		}
		defer b.Close()
		fsys = b.FS()
		defer func() {
			// What the bundle says it capped is what reading it found capped.
			var said []string
			for _, cp := range b.Capped() {
				if cp.Refused {
					said = append(said, cp.Path)
				}
			}
			if err == nil && fmt.Sprint(said) != fmt.Sprint(refused) {
				err = fmt.Errorf("Capped() lists %v as refused, reading refused %v", said, refused)
			}
		}()
	}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		var le *LimitError
		if errors.As(err, &le) {
			refused = append(refused, p)
			return nil
		}
		if err != nil {
			return err
		}
		kind, limit := c.lim.kindOf(p)
		if int64(len(data)) > limit+int64(len(tailMarker(1<<40, limit))) {
			return fmt.Errorf("%s: read %d bytes, over its cap of %d", p, len(data), limit)
		}
		if kind == kindLog && int64(len(data)) > limit && !strings.HasPrefix(string(data), "[wintroubleshoot: the first ") {
			return fmt.Errorf("%s: tailed without saying so", p)
		}
		return nil
	})
	return refused, err
}

// measure runs the case and returns the peak heap while it ran.
func (c hostileCase) measure(p string) ([]string, uint64, error) {
	runtime.GC()
	var peak uint64
	stop := sampleHeap(&peak)
	refused, err := c.run(p)
	stop()
	return refused, peak, err
}

// TestHostileInputs: every hostile bundle and folder ends in a clear error or a bounded
// result, and none takes more than hostileHeapBound of heap (HeapInuse, sampled every
// 5 ms while the input is opened and every file in it read), and the process's peak
// resident memory stays under hostileRSSBound. CI may add a hard address-space limit
// (prlimit --as); the Go runtime needs about 2 GiB of address space for itself.
func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hostile inputs of hundreds of MB")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(hostileGCLimit))
	runtime.GC()
	resetHWM()
	var worst uint64
	var worstName string
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			p := c.build(t, t.TempDir())
			refused, peak, err := c.measure(p)
			t.Logf("peak heap %.1f MiB", float64(peak)/(1<<20))
			if peak > worst {
				worst, worstName = peak, c.name
			}
			switch {
			case c.want != "" && err == nil:
				t.Fatalf("accepted; want an error saying %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q does not say %q", err, c.want)
			case c.want == "" && err != nil:
				t.Fatalf("want a bounded result, got %v", err)
			case fmt.Sprint(refused) != fmt.Sprint(c.refused):
				t.Errorf("refused %v, want %v", refused, c.refused)
			}
			if peak > hostileHeapBound {
				t.Errorf("peak heap %d MiB, over the bound of %d MiB", peak>>20, hostileHeapBound>>20)
			}
		})
	}
	t.Logf("worst case: %q, peak heap %.1f MiB (bound %d MiB)", worstName, float64(worst)/(1<<20), hostileHeapBound>>20)
	if hwm := vmHWM(); hwm > 0 {
		t.Logf("peak resident memory of the process: %.1f MiB (bound %d MiB)", float64(hwm)/(1<<20), hostileRSSBound>>20)
		if hwm > hostileRSSBound {
			t.Errorf("peak resident memory %d MiB, over the bound of %d MiB", hwm>>20, hostileRSSBound>>20)
		}
	}
}

// BenchmarkHostile reports the peak heap of reading each hostile input.
//
//	go test ./ingest/bundle -run '^$' -bench Hostile -benchtime 1x
func BenchmarkHostile(b *testing.B) {
	for _, c := range hostileCases() {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			p := c.build(b, b.TempDir())
			var peak uint64
			for b.Loop() {
				_, pk, _ := c.measure(p)
				peak = max(peak, pk)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

func mkdir(tb testing.TB, p string) {
	tb.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		tb.Fatal(err)
	}
}

func writeText(tb testing.TB, p, s string) {
	tb.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		tb.Fatal(err)
	}
}

func symlink(tb testing.TB, target, link string) {
	tb.Helper()
	if err := os.Symlink(target, link); err != nil {
		tb.Skipf("cannot make symlinks here: %v", err)
	}
}

// sparseFile makes a file of size bytes that takes no disk.
func sparseFile(tb testing.TB, p string, size int64) {
	tb.Helper()
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		tb.Fatal(err)
	}
}
