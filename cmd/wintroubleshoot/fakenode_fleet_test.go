package main

import (
	"bufio"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
)

// TestFakenodeFleet: --fleet N lists N copies as JSON lines, each copy answers a sweep
// over WinRM (NTLM, plain HTTP), and stopping prints what the copies served.
func TestFakenodeFleet(t *testing.T) {
	t.Setenv("WTS_FLEET_PW", "fleet-test-pw")
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut},
			[]string{"fakenode", "--scenario", "healthy-sdn-l2bridge-docker", "--fleet", "3", "--password-env", "WTS_FLEET_PW"})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "addresses above") {
		select {
		case code := <-done:
			t.Fatalf("fakenode --fleet exited %d: %s", code, errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listing after 20 s: %q", out.String())
		}
	}
	var copies []fleetCopy
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "{") {
			var c fleetCopy
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatalf("listing line %q: %v", line, err)
			}
			copies = append(copies, c)
		}
	}
	if len(copies) != 3 || copies[2].Copy != 3 || copies[0].Port == copies[1].Port || copies[1].Host != "127.0.0.1" ||
		copies[1].URL != "http://127.0.0.1:"+strconv.Itoa(copies[1].Port)+"/wsman" || copies[0].Node != "win-1" {
		t.Fatalf("listing: %+v", copies)
	}
	tr, err := winrm.New(transport.Config{Kind: transport.WinRM, Host: copies[1].Host, Port: copies[1].Port, User: "Administrator", Password: "fleet-test-pw"})
	if err != nil {
		t.Fatal(err)
	}
	files, err := sweep.Run(ctx, tr, sweep.Request{Names: []string{"host.json", "services.json"}})
	_ = tr.Close()
	if err != nil || len(files["host.json"]) == 0 || len(files["services.json"]) == 0 {
		t.Fatalf("sweeping copy 2: %v, %d files", err, len(files))
	}
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("stopped fleet exited %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var totals struct{ Requests, Commands int64 }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &totals); err != nil || totals.Commands != 1 || totals.Requests < 6 {
		t.Fatalf("totals %q: %+v %v", lines[len(lines)-1], totals, err)
	}
	if !strings.Contains(out.String(), "stopped; ") {
		t.Errorf("no words on stopping: %q", out.String())
	}
}

func TestFakenodeFleetRefuses(t *testing.T) {
	t.Setenv("WTS_FLEET_PW", "x")
	for _, args := range [][]string{
		{"--fleet", "-1"},
		{"--fleet", "100000"},
		{"--fleet", "2", "--https"},
		{"--fleet", "2", "--ssh-listen", "127.0.0.1:0"},
	} {
		var out, errOut strings.Builder
		code := Run(t.Context(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
			append([]string{"fakenode", "--scenario", "healthy-sdn-l2bridge-docker", "--password-env", "WTS_FLEET_PW"}, args...))
		if code != 2 || !strings.Contains(errOut.String(), "--fleet") {
			t.Errorf("%v: exit %d, %q", args, code, errOut.String())
		}
	}
}
