package podexec

import (
	"fmt"
	"sync"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// DefaultSelector is the label of the agent DaemonSet's pods (deploy/).
const DefaultSelector = "app.kubernetes.io/name=wintroubleshoot-agent"

// Flags are the transport's own flags.
type Flags struct {
	Selector, Namespace, Container string
}

// Bind adds the flags.
func (o *Flags) Bind(f *pflag.FlagSet) {
	f.StringVar(&o.Selector, "podexec-selector", DefaultSelector, "label selector of the HostProcess pods --transport podexec execs into, one on each node")
	f.StringVar(&o.Namespace, "podexec-namespace", "", "namespace of those pods (default: every namespace)")
	f.StringVar(&o.Container, "podexec-container", "", "container to exec into (default: the pod's first)")
}

// Validate checks the flags before anything connects.
func (o *Flags) Validate() error {
	if _, err := labels.Parse(o.Selector); err != nil || o.Selector == "" {
		return fmt.Errorf("--podexec-selector %q: want a label selector such as app=agent (%v)", o.Selector, err)
	}
	return nil
}

// Spec registers the transport: no password, the cluster only, nothing created.
func Spec() *transport.Spec {
	o := &Flags{Selector: DefaultSelector}
	var (
		mu      sync.Mutex
		cluster transport.Cluster
	)
	return &transport.Spec{
		Kinds: []transport.KindSpec{{Kind: Kind, Use: "exec into a HostProcess pod already on the node (--podexec-selector), creating nothing; " +
			"needs list on pods and create on pods/exec"}},
		Bind:          o.Bind,
		Validate:      o.Validate,
		NeedsPassword: func() bool { return false },
		Attach: func(c transport.Cluster) {
			mu.Lock()
			defer mu.Unlock()
			cluster = c
		},
		Dial: func(cfg transport.Config, _ func(string)) (transport.Transport, error) {
			mu.Lock()
			defer mu.Unlock()
			if cluster == nil {
				return nil, &transport.Error{Kind: Kind, Addr: "node/" + cfg.Node, Op: "connect",
					Err: fmt.Errorf("no Kubernetes cluster to find the pod in"), Hint: "pass --kubeconfig or --context"}
			}
			return &podTransport{cluster: cluster, flags: *o, node: cfg.Node}, nil
		},
	}
}
