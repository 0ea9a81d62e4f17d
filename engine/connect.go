package engine

import (
	"context"
	"io"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// ConnectOptions is what a live run starts from: the cluster client (nil for the --node
// list alone), how to reach nodes, and the tree evidence enters (already given its
// redacting intake by the caller).
type ConnectOptions struct {
	Registry    *probes.Registry
	Transports  transport.Registry
	Warn        io.Writer // the transports' once-per-run warnings
	Concurrency int
	Timeout     time.Duration
	Tree        *evidence.Tree
	Client      *kube.Client
	// Discover picks the nodes to probe from what the cluster lists (the Windows nodes,
	// and the Linux workers when asked).
	Discover func(kube.Discovery) []Discovered
	// NodeLogs bounds the log files read through the API server's node log query when a
	// sweep could not give them.
	NodeLogs kube.NodeLogOptions
}

// Connection is a live run connected: the engine every front end runs on, the nodes the
// cluster lists, and where the evidence comes from. ClusterErr is the cluster's failure
// when it did not answer (the caller words it and decides whether the --node list alone
// goes on); Client is then nil, as there is no cluster to fix through or re-read before
// a fix, while Cluster and Context still name it for the report.
type Connection struct {
	Engine                   *Engine
	Found                    []Discovered
	Client                   *kube.Client
	Source, Cluster, Context string
	ClusterErr               error
}

// Connect builds the engine, collects the cluster evidence into the tree, discovers the
// nodes, hands the cluster to the transports that go through it and wires the node log
// query as the fallback for logs a sweep could not give (only once discovery succeeded:
// no request goes to a cluster that is not there).
func Connect(ctx context.Context, o ConnectOptions) *Connection {
	c := &Connection{Engine: &Engine{Registry: o.Registry, Dial: o.Transports.Dialer(o.Warn),
		Concurrency: o.Concurrency, Timeout: o.Timeout, Tree: o.Tree, Reached: NewReachLog(), Scripts: new(sweep.Plans)}}
	if o.Client == nil {
		return c
	}
	cl := o.Client
	c.Cluster, c.Context = cl.Server(), cl.Context()
	disc, err := cl.Collect(ctx, o.Tree)
	if err != nil {
		c.ClusterErr = err
		return c
	}
	if o.Discover != nil {
		c.Found = o.Discover(disc)
	}
	c.Client = cl
	c.Source = "live cluster " + c.Context
	o.Transports.Attach(cl)
	logs := o.NodeLogs
	c.Engine.Logs = func(ctx context.Context, tree *evidence.Tree, node string, names []string) {
		cl.FillNodeLogs(ctx, tree, node, names, logs)
	}
	return c
}

// Session is the connection as the engine's front-end API, with these targets and fx as
// its fix runner (nil: no fixes, as for --report and snapshot).
func (c *Connection) Session(targets []Target, fx *Fixer) *Session {
	return &Session{Engine: c.Engine, Targets: targets, Fixer: fx, Source: c.Source, Cluster: c.Cluster, Context: c.Context}
}
