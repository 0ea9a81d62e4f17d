package sweep_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/ssh"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

const user, password = "Administrator", "sw33p-test-pw"

// scenario is a node that answers every snippet; containerd says whether it runs
// containerd (its config is collected), which makes crictl warn.
func scenario(containerd bool) fstest.MapFS {
	m := fstest.MapFS{}
	for _, n := range scripts.Snippets() {
		m["nodes/win-1/"+n] = &fstest.MapFile{Data: []byte(`{"from":"` + n + `"}`)}
	}
	if !containerd {
		delete(m, "nodes/win-1/containerd-config.toml")
	}
	return m
}

// over starts the node behind WinRM (HTTP) or SSH and returns a transport to it.
func over(t *testing.T, kind transport.Kind, node *fakenode.Node, faults *fakenode.Faults) (transport.Transport, *fakenode.WinRMServer) {
	t.Helper()
	var (
		cfg transport.Config
		ws  *fakenode.WinRMServer
	)
	switch kind {
	case transport.WinRM:
		s, err := fakenode.StartWinRM(t.Context(), node, fakenode.WinRMOptions{User: user, Password: password, AllowUnencrypted: true, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		ws = s
		cfg = transport.Config{Kind: transport.WinRM, Host: "127.0.0.1", Port: port(t, s.Addr()), User: user, Password: password}
	case transport.SSH:
		s, err := fakenode.StartSSH(t.Context(), node, fakenode.SSHOptions{User: user, Password: password, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		kh := filepath.Join(t.TempDir(), "known_hosts")
		line := knownhosts.Line([]string{knownhosts.Normalize(s.Addr())}, s.HostKey()) + "\n"
		if err := os.WriteFile(kh, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg = transport.Config{Kind: transport.SSH, Host: "127.0.0.1", Port: port(t, s.Addr()), User: user, Password: password, KnownHosts: kh}
	}
	var tr transport.Transport
	var err error
	if kind == transport.SSH {
		tr, err = ssh.New(cfg)
	} else {
		tr, err = winrm.New(cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr, ws
}

func port(t *testing.T, addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}

var kinds = []transport.Kind{transport.WinRM, transport.SSH}

// TestHungSnippetCostsOneFile: one snippet that never returns is stopped on the node at
// its limit; every other file arrives within the limit plus a second, and the hung one's
// .err says what timed out.
func TestHungSnippetCostsOneFile(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			faults := &fakenode.Faults{}
			faults.Set(fakenode.FaultSet{HangSnippets: []string{evidence.FileHNSNetworks}})
			node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario(false), Node: "win-1", Faults: faults})
			tr, _ := over(t, kind, node, faults)
			const limit = time.Second
			start := time.Now()
			files, err := sweep.Run(t.Context(), tr, sweep.Request{Names: scripts.Snippets(), Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > limit+time.Second {
				t.Errorf("the sweep took %v, want at most the snippet limit plus a second", d)
			}
			for _, n := range scripts.Snippets() {
				if n == evidence.FileHNSNetworks || n == evidence.FileContainerdConfig {
					continue // hung; not on a docker node
				}
				if string(files[n]) != `{"from":"`+n+`"}` {
					t.Errorf("%s: %q (.err %q)", n, files[n], files[n+evidence.ErrSuffix])
				}
			}
			e := string(files[evidence.FileHNSNetworks+evidence.ErrSuffix])
			if !strings.HasPrefix(e, "exit 1460\ntimed out after 1 s (hns-networks.json was stopped") {
				t.Errorf("hung snippet's .err: %q", e)
			}
		})
	}
}

// TestCutShortKeepsWhatArrived: a sweep the client gives up on, or whose connection
// drops, still returns every frame that arrived; the rest say why they are missing.
func TestCutShortKeepsWhatArrived(t *testing.T) {
	names := scripts.Snippets()
	for _, kind := range kinds {
		t.Run(string(kind)+" timeout", func(t *testing.T) {
			faults := &fakenode.Faults{}
			faults.Set(fakenode.FaultSet{HangSnippets: []string{evidence.FileHNSNetworks}})
			node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario(false), Node: "win-1", Faults: faults})
			tr, _ := over(t, kind, node, faults)
			ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
			defer cancel()
			// The .err names the seconds the sweep ran before the client gave up: 1 or 2
			// on an idle machine, more under load, so the test asserts the wording only.
			files, err := sweep.Run(ctx, tr, sweep.Request{Names: names, Limit: time.Minute})
			if err != nil {
				t.Fatalf("a sweep cut short by the timeout returned nothing: %v", err)
			}
			if string(files[evidence.FileHost]) != `{"from":"host.json"}` {
				t.Errorf("host.json (ran before the hung call) lost: %q", files[evidence.FileHost+evidence.ErrSuffix])
			}
			e := string(files[evidence.FileHNSNetworks+evidence.ErrSuffix])
			if !regexp.MustCompile(`^exit -1\ntimed out after [1-9][0-9]* s: the sweep was stopped`).MatchString(e) {
				t.Errorf("hung snippet's .err: %q", e)
			}
		})
	}
	t.Run("ssh dropped", func(t *testing.T) {
		faults := &fakenode.Faults{}
		faults.Set(fakenode.FaultSet{DropMidReply: true})
		node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario(false), Node: "win-1"})
		tr, _ := over(t, transport.SSH, node, faults)
		files, err := sweep.Run(t.Context(), tr, sweep.Request{Names: names})
		if err != nil {
			t.Fatalf("a dropped sweep returned nothing: %v", err)
		}
		arrived, dropped := 0, 0
		for _, n := range names {
			if strings.Contains(string(files[n+evidence.ErrSuffix]), "exit -1\nconnection dropped before this snippet's output arrived") {
				dropped++
			} else {
				arrived++ // its frame came, output or failure
			}
		}
		if arrived == 0 || dropped == 0 || arrived+dropped != len(names) {
			t.Errorf("%d arrived, %d dropped of %d", arrived, dropped, len(names))
		}
	})
}

// TestSweepIsSentInPipeMode: the WinRM transport sends the sweep's stdin in pipe mode;
// the fake node fails a sweep sent in console mode, so a regression fails here.
func TestSweepIsSentInPipeMode(t *testing.T) {
	node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario(false), Node: "win-1"})
	tr, ws := over(t, transport.WinRM, node, nil)
	if _, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{evidence.FileHost}}); err != nil {
		t.Fatal(err)
	}
	cmds := ws.Commands()
	if len(cmds) == 0 {
		t.Fatal("the node recorded no command")
	}
	for _, c := range cmds {
		if c.StdinBytes > 0 && c.ConsoleModeStdin {
			t.Errorf("stdin sent in console mode: %.60s", c.Line)
		}
	}
}

// TestNativeStderrAtExitZeroIsANote: crictl warns on stderr and exits 0 on a containerd
// node; the evidence is kept and the warning lands in a .note, not a .err.
func TestNativeStderrAtExitZeroIsANote(t *testing.T) {
	node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario(true), Node: "win-1"})
	tr, _ := over(t, transport.WinRM, node, nil)
	files, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{evidence.FileImages, evidence.FileContainers}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{evidence.FileImages, evidence.FileContainers} {
		if _, failed := files[n+evidence.ErrSuffix]; failed || len(files[n]) == 0 {
			t.Errorf("%s lost to a warning: %q", n, files[n+evidence.ErrSuffix])
		}
		if !strings.Contains(string(files[n+sweep.NoteSuffix]), "level=warning") {
			t.Errorf("%s: the warning was not kept as a note: %q", n, files[n+sweep.NoteSuffix])
		}
	}
}

// TestConstrainedLanguageIsRefusedClearly: a node in ConstrainedLanguage mode answers with
// what is wrong, not a parse error.
func TestConstrainedLanguageIsRefusedClearly(t *testing.T) {
	node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario(false), Node: "win-1", LanguageMode: "ConstrainedLanguage"})
	tr, _ := over(t, transport.WinRM, node, nil)
	_, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{evidence.FileHost}})
	if err == nil || !strings.Contains(err.Error(), "PowerShell runs in ConstrainedLanguage mode on WIN-1: ") {
		t.Fatalf("got %v", err)
	}
}

// fallbackTransport is a transport that can read HNS another way, as the local one can.
type fallbackTransport struct {
	transport.Transport
	hns func(context.Context) ([]byte, error)
}

func (f fallbackTransport) Fallbacks() map[string]func(context.Context) ([]byte, error) {
	return map[string]func(context.Context) ([]byte, error){evidence.FileHNSNetworks: f.hns}
}

// TestFallbackFillsAFailedFile: the sweep, not the transport, replaces a failed file with
// what the transport's fallback reads; other files stay as the node printed them.
func TestFallbackFillsAFailedFile(t *testing.T) {
	node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario(false), Node: "win-1", CmdletMissing: []string{evidence.FileHNSNetworks}})
	tr, _ := over(t, transport.WinRM, node, nil)
	names := []string{evidence.FileHNSNetworks, evidence.FileRoutes}
	direct := fallbackTransport{tr, func(context.Context) ([]byte, error) { return []byte(`[{"Name":"nat"}]`), nil }}
	files, err := sweep.Run(t.Context(), direct, sweep.Request{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	if string(files[evidence.FileHNSNetworks]) != `[{"Name":"nat"}]` || files[evidence.FileHNSNetworks+evidence.ErrSuffix] != nil {
		t.Errorf("fallback not applied: %q %q", files[evidence.FileHNSNetworks], files[evidence.FileHNSNetworks+evidence.ErrSuffix])
	}
	if string(files[evidence.FileRoutes]) != `{"from":"routes.json"}` {
		t.Errorf("routes changed: %q", files[evidence.FileRoutes])
	}
	broken := fallbackTransport{tr, func(context.Context) ([]byte, error) { return nil, os.ErrPermission }}
	files, err = sweep.Run(t.Context(), broken, sweep.Request{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	e := string(files[evidence.FileHNSNetworks+evidence.ErrSuffix])
	if !strings.Contains(e, "not recognized") || !strings.Contains(e, "reading it another way failed too: permission denied") {
		t.Errorf(".err %q", e)
	}
}

// TestLinuxSweepIsTheLinuxKeys: the shell sweep produces exactly the Linux node keys'
// files, running the command each key's contract row names where the row is one
// command, and a node of either kind is asked only for its own kind's files.
func TestLinuxSweepIsTheLinuxKeys(t *testing.T) {
	keys := evidence.Names(evidence.NodeKeysOf(evidence.Linux, false))
	if files := scripts.LinuxFiles(); !slices.Equal(slices.Sorted(slices.Values(keys)), slices.Sorted(slices.Values(files))) {
		t.Fatalf("Linux keys %v, Linux sweep files %v", keys, files)
	}
	for _, k := range evidence.NodeKeysOf(evidence.Linux, false) {
		m := k.Meta()
		row, ok := strings.CutPrefix(m.Command, "`")
		row, one := strings.CutSuffix(row, "`")
		if !ok || !one || strings.Contains(row, "`") || strings.HasPrefix(row, "cat /etc") || strings.HasPrefix(row, "cat /run") {
			continue // prose, or a file read (the sweep bounds it with head -c)
		}
		if got, _ := scripts.LinuxCommand(m.Name); got != row {
			t.Errorf("%s: the sweep runs %q, the contract says %q", m.Name, got, row)
		}
	}
	all := evidence.Names(append(evidence.NodeKeys(false), evidence.NodeKeys(true)...))
	linux := sweep.NamesFor(evidence.Linux, all)
	windows := sweep.NamesFor(evidence.Windows, all)
	if !slices.Equal(slices.Sorted(slices.Values(linux)), slices.Sorted(slices.Values(keys))) {
		t.Errorf("a Linux node is asked for %v", linux)
	}
	for _, n := range windows {
		if scripts.IsLinuxFile(n) {
			t.Errorf("a Windows node is asked for %s", n)
		}
	}
	if len(windows)+len(linux) != len(all) || len(sweep.NamesFor("", all)) != len(windows) {
		t.Errorf("%d names split into %d Windows and %d Linux", len(all), len(windows), len(linux))
	}
}
