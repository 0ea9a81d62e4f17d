package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
	"github.com/wintroubleshoot/wintroubleshoot/tui"
)

// runInteractive is the default: connect to the cluster and its Windows nodes, then open
// the screen, which starts probing at once.
//
// With no kubeconfig at all (none given, none at ~/.kube/config, not in a pod) and no
// --node list, it opens the demo fleet instead, saying why, so the first run on a fresh
// machine shows something real. A kubeconfig whose cluster does not answer is an error
// naming the context and the server (unreachableError): that user meant their cluster.
func runInteractive(ctx context.Context, streams genericiooptions.IOStreams, o *liveOptions) error {
	sess, err := o.connect(ctx, streams)
	if err != nil {
		if o.noKubeconfig() && len(o.access.nodes) == 0 {
			fmt.Fprintf(streams.ErrOut, "no cluster at hand (%v)\nopening the demo fleet: fake Windows nodes on loopback (wintroubleshoot demo)\n", firstLineOf(err))
			fl, stop, derr := openDemo(ctx)
			if derr != nil {
				return &exitError{code: report.ExitUsage, err: derr}
			}
			defer stop()
			return runTUI(ctx, streams, fl, "demo fleet", "demo", nil, nil, nil)
		}
		return err
	}
	red, err := newRunRedactor(o.out.redactRules)
	if err != nil {
		return err
	}
	addSecrets(red, sess.secrets, streams.ErrOut)
	fx, err := sess.fixer(red, o.noAudit, streams.ErrOut)
	if err != nil {
		return err
	}
	api := sess.api(fx)
	return runTUI(ctx, streams, api.Fleet(o.access.concurrency), api.Cluster, api.Context, sessionSnapshot{api, sess.secrets}, red, sess.gate)
}

// runTUI opens the screen over a fleet and waits until the person quits; gate, when
// set, asks its question on the screen before the first HostProcess pod.
func runTUI(ctx context.Context, streams genericiooptions.IOStreams, fl *engine.Fleet, cluster, kctx string, snap tui.Snapshotter, red *redact.Redactor, gate *podGate) error {
	m := tui.New(tui.Options{
		Parent:  ctx,
		Cluster: cluster, Context: kctx, Nodes: fl.Names(),
		Backend: fl, Fixer: fl, Snapshot: snap,
		Pager:    pager,
		Redactor: screenRedactor{red},
	})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(streams.In), tea.WithOutput(streams.Out))
	if gate != nil {
		done := make(chan struct{})
		defer close(done)
		gate.setAsk(askOnScreen(ctx, func(title string, lines []string, reply chan<- bool) {
			p.Send(tui.AskMsg{Title: title, Lines: lines, Reply: reply})
		}, done))
	}
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("running the screen: %w", err)}
	}
	return nil
}

// pager shows evidence in $PAGER (less by default), suspending the screen meanwhile.
// The screen calls it from Update, so the temporary file is written when the returned
// Cmd runs, off the event loop; the file is removed when the pager exits.
func pager(path string, content []byte) tea.Cmd {
	return func() tea.Msg {
		dir, err := os.MkdirTemp("", "wts-evidence-")
		if err != nil {
			return pagerDoneMsg{err: fmt.Errorf("opening the pager: %w", err)}
		}
		file := filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(file, content, 0o600); err != nil {
			os.RemoveAll(dir)
			return pagerDoneMsg{err: fmt.Errorf("opening the pager: %w", err)}
		}
		argv := strings.Fields(os.Getenv("PAGER")) // PAGER may carry flags: "less -R"
		if len(argv) == 0 {
			argv = []string{"less"}
		}
		// ExecProcess's Cmd only hands the program a message asking it to suspend and run
		// the process, so calling it here is how a Cmd starts a pager.
		return tea.ExecProcess(exec.Command(argv[0], append(argv[1:], file)...), func(err error) tea.Msg {
			os.RemoveAll(dir)
			return pagerDoneMsg{err: err}
		})()
	}
}

// pagerDoneMsg ends a pager run; the screen ignores messages it does not know.
type pagerDoneMsg struct{ err error }

func firstLineOf(err error) string {
	l, _, _ := strings.Cut(err.Error(), "\n")
	return l
}

// sessionSnapshot is the screen's s key: a snapshot of the live session, with the
// snapshot command's defaults, written to the current folder.
type sessionSnapshot struct {
	sess    *engine.Session
	secrets []string // the run's credentials, redacted from the bundle as literals
}

func (s sessionSnapshot) Snapshot(ctx context.Context, progress func(done, total int, item string)) (string, error) {
	out := fmt.Sprintf("wintroubleshoot-snapshot-%s.tar.gz", time.Now().UTC().Format("20060102-150405"))
	o := snapshotOptions{out: out, since: 24 * time.Hour, maxLog: "10Mi"}
	opt, err := o.engineOptions(io.Discard)
	if err != nil {
		return "", err
	}
	addSecrets(opt.Redact, s.secrets, io.Discard)
	total := len(s.sess.Targets) + 1 // the nodes, then the bundle
	opt.OnNode = func(done, _ int, node string) { progress(done, total, node) }
	_, findings, err := s.sess.Snapshot(ctx, opt)
	if err != nil {
		return "", err
	}
	progress(total, total, fmt.Sprintf("%s (%d findings)", out, len(findings)))
	return out, nil
}
