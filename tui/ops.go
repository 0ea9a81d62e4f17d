package tui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
)

// maxBatch bounds how many engine events one message carries: a 500-node sweep then
// costs a handful of Update+View rounds instead of 1500.
const maxBatch = 512

// sweep is one running Backend.Probe. Events travel from the backend's goroutines over
// a channel; a tea.Cmd waits for the next batch, so Update never blocks on I/O.
type sweep struct {
	id     int
	nodes  []string // nil: every node
	ctx    context.Context
	cancel context.CancelFunc
	events chan engine.Event

	start  sync.Once
	mu     sync.Mutex
	closed bool
}

// sweepMsg carries a batch of events of one sweep; end is set when Probe returned.
type sweepMsg struct {
	id     int
	events []engine.Event
	end    bool
}

func newSweep(parent context.Context, id int, nodes []string) *sweep {
	ctx, cancel := context.WithCancel(parent)
	return &sweep{id: id, nodes: nodes, ctx: ctx, cancel: cancel, events: make(chan engine.Event, maxBatch)}
}

// emit is handed to Backend.Probe. It blocks while the UI catches up (back-pressure)
// but never after the sweep is cancelled, and ignores calls after Probe returned.
func (s *sweep) emit(ev engine.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	select {
	case s.events <- ev:
	case <-s.ctx.Done():
	}
}

// run starts Probe once, in the background.
func (s *sweep) run(b Backend) {
	s.start.Do(func() {
		go func() {
			b.Probe(s.ctx, s.nodes, s.emit)
			s.mu.Lock()
			s.closed = true
			close(s.events)
			s.mu.Unlock()
		}()
	})
}

// next starts the sweep if needed and waits for the next batch of events.
func (s *sweep) next(b Backend) tea.Cmd {
	return func() tea.Msg {
		s.run(b)
		ev, ok := <-s.events
		if !ok {
			return sweepMsg{id: s.id, end: true}
		}
		batch := []engine.Event{ev}
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-s.events:
				if !ok {
					return sweepMsg{id: s.id, events: batch, end: true}
				}
				batch = append(batch, ev)
			default:
				return sweepMsg{id: s.id, events: batch}
			}
		}
		return sweepMsg{id: s.id, events: batch}
	}
}

// task is a cancellable background operation (a fix or a snapshot) that reports
// progress messages and then one final message over a channel.
type task struct {
	id     int
	ctx    context.Context
	cancel context.CancelFunc
	msgs   chan tea.Msg
}

func newTask(parent context.Context, id int) *task {
	ctx, cancel := context.WithCancel(parent)
	return &task{id: id, ctx: ctx, cancel: cancel, msgs: make(chan tea.Msg, 64)}
}

// progress sends a progress message, dropping it once the task is cancelled (or when the
// UI is far behind: progress is advisory, the final message is not).
func (t *task) progress(msg tea.Msg) {
	select {
	case t.msgs <- msg:
	case <-t.ctx.Done():
	default:
	}
}

// start runs work in the background; its result is the final message.
func (t *task) start(work func(ctx context.Context) tea.Msg) tea.Cmd {
	go func() {
		msg := work(t.ctx)
		select {
		case t.msgs <- msg: // the UI listens until this arrives
		case <-t.ctx.Done(): // cancelled or quitting: deliver if there is room, never block
			select {
			case t.msgs <- msg:
			default:
			}
		}
		close(t.msgs)
	}()
	return t.next()
}

// next waits for the task's next message.
func (t *task) next() tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-t.msgs
		if !ok {
			return nil
		}
		return msg
	}
}
