package bundle

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogsAreTailedFromMemoryAndSpill(t *testing.T) {
	var log strings.Builder
	for i := 0; log.Len() < 3<<20; i++ {
		fmt.Fprintf(&log, "I0101 line %07d of the kubelet log\n", i)
	}
	whole := log.String()
	small := whole[len(whole)-200_000:] // kept in memory
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	tb := newTarBuild(t, p)
	tb.file("nodes/win-1/kubelet.log", int64(len(whole)), strings.NewReader(whole)) // spilled
	tb.file("nodes/win-1/kube-proxy.log", int64(len(small)), strings.NewReader(small))
	tb.close(0)
	lim := DefaultLimits()
	lim.MaxLog = 100_000
	b, err := OpenLimits(context.Background(), p, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for name, src := range map[string]string{"nodes/win-1/kubelet.log": whole, "nodes/win-1/kube-proxy.log": small} {
		got, err := fs.ReadFile(b.FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		marker := tailMarker(int64(len(src))-lim.MaxLog, lim.MaxLog)
		if string(got) != marker+src[len(src)-int(lim.MaxLog):] {
			t.Errorf("%s: served %d bytes, not the marker and the last %d bytes", name, len(got), lim.MaxLog)
		}
		if st, err := fs.Stat(b.FS(), name); err != nil || st.Size() != int64(len(got)) {
			t.Errorf("%s: Stat says %v bytes (%v), read %d", name, st.Size(), err, len(got))
		}
	}
	if got := b.Capped(); len(got) != 2 || got[0].Refused || !strings.Contains(got[0].String(), "only the last 100000") {
		t.Errorf("Capped() = %v", got)
	}
}

func TestCheckNodeName(t *testing.T) {
	for name, ok := range map[string]bool{
		"win-1": true, "akswin000001": true, "ip-10-0-1-5.ec2.internal": true, "10.0.0.5": true,
		"WIN-1": false, "a_b": false, "a/b": false, "a..b": false, "-a": false, "": false, strings.Repeat("a", 254): false,
	} {
		if err := CheckNodeName(name); (err == nil) != ok {
			t.Errorf("CheckNodeName(%q) = %v", name, err)
		}
	}
}
