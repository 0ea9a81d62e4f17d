package demo

import (
	"context"
	"errors"
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transports"
	"io"
	"net"
	"os"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// HostProcessNeeds says what `demo --hostprocess` needs when it cannot run.
const HostProcessNeeds = "demo --hostprocess runs a real kube-apiserver and etcd, and their binaries are not here: " +
	"run `bash fixtures/kubeapi/build.sh` once (about 5 minutes), or set WTS_KUBEAPI_BIN"

// addHostProcessDemo adds to the fleet one member per scenario node reached the way
// --transport hostprocess reaches nodes: a real kube-apiserver on loopback, a fake kubelet
// per node answering exec from the scenario, a HostProcess pod per sweep. Cluster node
// names are hp-NN, since scenarios reuse node names; evidence keeps the scenario's.
func addHostProcessDemo(ctx context.Context, fl *engine.Fleet, names []string, fix func(*engine.Engine, engine.Target, *evidence.Tree) *engine.Fixer) (func(), error) {
	if kubeapi.BinDir() == "" {
		return nil, errors.New(HostProcessNeeds)
	}
	dir, err := os.MkdirTemp("", "wts-demo-kubeapi-")
	if err != nil {
		return nil, err
	}
	c, err := kubeapi.StartIn(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the demo's kube-apiserver: %w", err)
	}
	var kubelets []*fakenode.Kubelet
	stop := func() {
		for _, k := range kubelets {
			k.Close()
		}
		c.Stop()
		os.RemoveAll(dir)
	}
	fail := func(err error) (func(), error) { stop(); return nil, err }
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return fail(err)
	}
	tlsCfg, err := c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		return fail(err)
	}
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &c.Kubeconfig
	client, err := kube.New(flags)
	if err != nil {
		return fail(err)
	}
	reg := transports.Registry()
	reg.Attach(client)
	dial := reg.Dialer(io.Discard)
	i := 0
	for _, name := range names {
		fsys, meta, _, err := scenarios.Load(name)
		if err != nil {
			return fail(err)
		}
		for _, node := range meta.Nodes {
			i++
			clusterName := fmt.Sprintf("hp-%02d", i)
			k, err := fakenode.StartKubelet(ctx, fakenode.KubeletOptions{Name: clusterName, Client: cs, TLS: tlsCfg,
				Responder: fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node})})
			if err != nil {
				return fail(err)
			}
			kubelets = append(kubelets, k)
			tree := evidence.NewTree()
			if err := tree.CopyFrom(fsys, "cluster"); err != nil {
				return fail(fmt.Errorf("scenario %s: %w", name, err))
			}
			eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Concurrency: 1, Tree: tree}
			t := engine.Target{Name: node, Transport: transport.Config{Kind: transport.HostProcess, Node: clusterName, Timeout: 2 * time.Minute}}
			fl.Add(&engine.Member{Display: "hostprocess:" + name + "." + node, Target: t, Engine: eng, Fixer: fix(eng, t, tree)})
		}
	}
	return stop, nil
}
