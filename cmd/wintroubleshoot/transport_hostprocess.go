package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
)

// hostprocessRBAC is what the hostprocess transport needs, said up front in --help and
// granted by docs/rbac.yaml.
const hostprocessRBAC = "needs, in one namespace (--hostprocess-namespace): pods create/get/list/watch/delete and " +
	"pods/exec create (docs/rbac.yaml), and PodSecurity privileged there"

// hostprocessTransport reaches a node through the Kubernetes API alone: a HostProcess pod
// bound to it, the sweep exec'd in it. It needs the cluster (attach) and no password.
func hostprocessTransport() *transportSpec {
	var image, linuxImage, namespace string
	var start time.Duration
	var (
		mu     sync.Mutex
		client *kube.Client
		run    *hostprocess.Run
	)
	return &transportSpec{
		kinds: []kindSpec{{transport.HostProcess, 0, "a HostProcess pod through the Kubernetes API, no node credentials; " + hostprocessRBAC}},
		flags: func(f *pflag.FlagSet) {
			f.StringVar(&image, "hostprocess-image", hostprocess.DefaultImage, "image of the HostProcess pod (--transport hostprocess); it only needs to exist for the node's OS")
			f.StringVar(&linuxImage, "linux-pod-image", hostprocess.DefaultLinuxImage, "image of the privileged pod that reaches a Linux worker through the cluster (--transport hostprocess or auto); it needs nsenter and sh")
			f.StringVar(&namespace, "hostprocess-namespace", "", "namespace of the HostProcess pods; PodSecurity must allow privileged there (default: the context's namespace)")
			f.DurationVar(&start, "hostprocess-start-timeout", hostprocess.DefaultStartTimeout, "how long to wait for a HostProcess pod to run")
		},
		validate: func() error {
			if start <= 0 {
				return fmt.Errorf("--hostprocess-start-timeout %s: want a positive duration such as 2m", start)
			}
			if image == "" {
				return fmt.Errorf("--hostprocess-image: want an image reference")
			}
			if linuxImage == "" {
				return fmt.Errorf("--linux-pod-image: want an image reference")
			}
			return nil
		},
		needsPassword: func() bool { return false },
		attach: func(c *kube.Client) {
			mu.Lock()
			defer mu.Unlock()
			client, run = c, nil
		},
		dial: func(cfg transport.Config, warn func(string)) (transport.Transport, error) {
			mu.Lock()
			defer mu.Unlock()
			if client == nil {
				return nil, &transport.Error{Kind: transport.HostProcess, Addr: cfg.Address(), Op: "connect",
					Err: fmt.Errorf("no Kubernetes cluster to create the pod in"), Hint: "pass --kubeconfig or --context"}
			}
			if run == nil {
				ns := namespace
				if ns == "" {
					ns = client.Namespace()
				}
				r, err := hostprocess.NewRun(hostprocess.Options{Client: client.Interface(), Config: client.RESTConfig(),
					Namespace: ns, Image: image, LinuxImage: linuxImage, StartTimeout: start, Warn: warn})
				if err != nil {
					return nil, err
				}
				run = r
			}
			return run.Dial(cfg)
		},
	}
}
