package hostprocess

import (
	"fmt"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// RBAC is what the transport needs, said up front in --help and granted by docs/rbac.yaml.
const RBAC = "needs, in one namespace (--hostprocess-namespace): pods create/get/list/watch/delete and " +
	"pods/exec create (docs/rbac.yaml), and PodSecurity privileged there"

// Flags are the transport's own flags.
type Flags struct {
	Image, LinuxImage, Namespace string
	StartTimeout                 time.Duration
}

// Bind adds the flags.
func (o *Flags) Bind(f *pflag.FlagSet) {
	f.StringVar(&o.Image, "hostprocess-image", DefaultImage, "image of the HostProcess pod (--transport hostprocess); it only needs to exist for the node's OS")
	f.StringVar(&o.LinuxImage, "linux-pod-image", DefaultLinuxImage, "image of the privileged pod that reaches a Linux worker through the cluster (--transport hostprocess or auto); it needs nsenter and sh")
	f.StringVar(&o.Namespace, "hostprocess-namespace", "", "namespace of the HostProcess pods; PodSecurity must allow privileged there (default: the context's namespace)")
	f.DurationVar(&o.StartTimeout, "hostprocess-start-timeout", DefaultStartTimeout, "how long to wait for a HostProcess pod to run")
}

// Validate checks the flags before anything connects.
func (o *Flags) Validate() error {
	if o.StartTimeout <= 0 {
		return fmt.Errorf("--hostprocess-start-timeout %s: want a positive duration such as 2m", o.StartTimeout)
	}
	if o.Image == "" {
		return fmt.Errorf("--hostprocess-image: want an image reference")
	}
	if o.LinuxImage == "" {
		return fmt.Errorf("--linux-pod-image: want an image reference")
	}
	return nil
}

// Spec registers the transport that reaches a node through the Kubernetes API alone: a
// HostProcess pod bound to it, the sweep exec'd in it. It needs the cluster (Attach) and
// no password. One Run (its run id, its pods) serves every node of the run.
func Spec() *transport.Spec {
	o := &Flags{Image: DefaultImage, LinuxImage: DefaultLinuxImage, StartTimeout: DefaultStartTimeout}
	var (
		mu      sync.Mutex
		cluster transport.Cluster
		run     *Run
	)
	return &transport.Spec{
		Kinds:         []transport.KindSpec{{Kind: transport.HostProcess, Use: "a HostProcess pod through the Kubernetes API, no node credentials; " + RBAC}},
		Bind:          o.Bind,
		Validate:      o.Validate,
		NeedsPassword: func() bool { return false },
		Attach: func(c transport.Cluster) {
			mu.Lock()
			defer mu.Unlock()
			cluster, run = c, nil
		},
		Dial: func(cfg transport.Config, warn func(string)) (transport.Transport, error) {
			mu.Lock()
			defer mu.Unlock()
			if cluster == nil {
				return nil, &transport.Error{Kind: transport.HostProcess, Addr: cfg.Address(), Op: "connect",
					Err: fmt.Errorf("no Kubernetes cluster to create the pod in"), Hint: "pass --kubeconfig or --context"}
			}
			if run == nil {
				ns := o.Namespace
				if ns == "" {
					ns = cluster.Namespace()
				}
				r, err := NewRun(Options{Client: cluster.Interface(), Config: cluster.RESTConfig(),
					Namespace: ns, Image: o.Image, LinuxImage: o.LinuxImage, StartTimeout: o.StartTimeout, Warn: warn})
				if err != nil {
					return nil, err
				}
				run = r
			}
			return run.Dial(cfg)
		},
	}
}
