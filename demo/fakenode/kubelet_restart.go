package fakenode

import (
	"context"
	"net"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

// restartDowntime is how long a restarted kubelet or containerd is away before it
// answers again: its process stopped, the new one not yet serving.
const restartDowntime = 2 * time.Second

// What the kubelet answers while one of them restarts, as the real components do:
//
//   - containerd away: the kubelet's exec handler asks the runtime for an exec stream
//     over CRI, and the gRPC dial of containerd's named pipe fails; the handler writes
//     the error with status 500 (pkg/kubelet/server/server.go getExec, streaming.WriteError).
//     The wording is grpc-go's for a failed dial (code Unavailable, "connection error:
//     desc = \"transport: Error while dialing: ...\"") around go-winio's DialPipe error.
//   - the kubelet away: nothing listens on its port; the fake accepts and drops the
//     connection at once (restartingListener), which the API server reports as an error
//     dialing or reading from the backend.
//
// Either way every stream open at the moment of the restart is cut, and a pod made
// meanwhile starts only once both are back (the kubelet syncs it, containerd runs its
// sandbox).
const containerdAwayMsg = `rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: ` +
	`open \\\\.\\pipe\\containerd-containerd: The system cannot find the file specified."`

// kubeletRestarter is the restarter the fake kubelet hands its Windows execs.
type kubeletRestarter struct{ k *Kubelet }

func (r kubeletRestarter) restart(service string, detached bool, restarted func()) {
	if !detached {
		r.k.restartNow(service, restarted)
		return
	}
	go func() {
		t := time.NewTimer(scripts.DefaultRestartDelay)
		defer t.Stop()
		select {
		case <-t.C:
			r.k.restartNow(service, restarted)
		case <-r.k.done:
		}
	}()
}

// restartNow takes service away: every open stream is cut, and for restartDowntime
// the kubelet answers as above; then restarted runs and service is back.
func (k *Kubelet) restartNow(service string, restarted func()) {
	k.mu.Lock()
	if k.gone {
		k.mu.Unlock()
		return
	}
	k.down = service
	k.events = append(k.events, "cut "+service)
	for c := range k.conns {
		_ = c.Close()
	}
	k.mu.Unlock()
	go func() {
		t := time.NewTimer(restartDowntime)
		defer t.Stop()
		select {
		case <-t.C:
		case <-k.done:
			return
		}
		restarted()
		k.mu.Lock()
		k.down = ""
		k.events = append(k.events, "up "+service)
		k.mu.Unlock()
	}()
}

// away is the service restarting now ("" none).
func (k *Kubelet) away() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.down
}

// waitBack returns once neither the kubelet nor containerd is restarting (or ctx ends).
func (k *Kubelet) waitBack(ctx context.Context) {
	for k.away() != "" {
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Events are the execs served and the restarts modelled, in order: "exec", "cut
// containerd", "up containerd", ...
func (k *Kubelet) Events() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.events...)
}

// restartingListener drops every connection while the kubelet itself restarts.
type restartingListener struct {
	net.Listener
	k *Kubelet
}

func (l restartingListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || l.k.away() != "kubelet" {
			return c, err
		}
		_ = c.Close()
	}
}
