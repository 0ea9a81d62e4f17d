package scripts

import (
	"bytes"
	"testing"
)

// The sweep reply comes from the node: whatever arrives, Split returns frames or an
// error, what it returns re-frames to the same results, and SplitInPlace agrees.
func FuzzSplit(f *testing.F) {
	f.Add(Frame([]Result{{Name: "a.json", Stdout: []byte("[]")}, {Name: "b.json", Exit: 1, Stderr: []byte("x")}}))
	f.Add([]byte("banner\r\n@@WTS@@ a.json 0  \r\n@@WTS@@ END 1\r\n"))
	f.Add([]byte("@@WTS@@ a.json 0 !!! \r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, noise, err := Split(b)
		inPlace, noise2, err2 := SplitInPlace(bytes.Clone(b))
		if (err == nil) != (err2 == nil) || len(inPlace) != len(res) || len(noise) != len(noise2) {
			t.Fatalf("SplitInPlace: %d results, %v; Split: %d, %v", len(inPlace), err2, len(res), err)
		}
		for i := range res {
			a, c := res[i], inPlace[i]
			if a.Name != c.Name || a.Exit != c.Exit || !bytes.Equal(a.Stdout, c.Stdout) || !bytes.Equal(a.Stderr, c.Stderr) || !bytes.Equal(a.Notes, c.Notes) {
				t.Fatalf("result %d differs in place: %+v, %+v", i, c, a)
			}
		}
		if err != nil {
			return
		}
		again, _, err := Split(Frame(res))
		if err != nil || len(again) != len(res) {
			t.Fatalf("re-framing %d results: %v", len(res), err)
		}
		for i := range res {
			if !bytes.Equal(res[i].Stdout, again[i].Stdout) || res[i].Exit != again[i].Exit {
				t.Fatalf("result %d changed through Frame", i)
			}
		}
	})
}

func FuzzDecodeCLIXML(f *testing.F) {
	f.Add([]byte("#< CLIXML\r\n<Objs Version=\"1.1.0.1\"><S S=\"Error\">boom_x000D__x000A_</S></Objs>"))
	f.Add([]byte("#< CLIXML\r\n<Objs><S S=\"Error\">cut"))
	f.Fuzz(func(t *testing.T, b []byte) { _ = DecodeCLIXML(b) })
}

func FuzzParseSweep(f *testing.F) {
	s, _ := Sweep([]Call{{Name: "hns-networks.json"}, {Name: "fix-start-service", Params: map[string]any{"Name": []string{"kubelet"}}}})
	f.Add(s)
	f.Add("# wts:sweep v1\n# wts:call x.json e30=\n")
	f.Fuzz(func(t *testing.T, s string) { _, _, _ = ParseSweep(s) })
}
