package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
)

// unreachableError is a kubeconfig that loaded but whose API server did not answer. It
// names the context and the server, and the commands to check the cluster or to open the
// demo instead: a user with a kubeconfig meant that cluster, so the tool never swaps in
// the demo fleet silently.
type unreachableError struct {
	context, server string
	err             error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot reach the cluster of context %q at %s: %v\n"+
		"check it with:       kubectl --context %s cluster-info\n"+
		"or try the demo:     wintroubleshoot demo", e.context, e.server, firstLineOf(e.err), e.context)
}

func (e *unreachableError) Unwrap() error { return e.err }

// noKubeconfig reports whether nothing names a cluster: no kubeconfig flag or
// $KUBECONFIG, no ~/.kube/config, and not running in a pod. Only then does the default
// command open the demo fleet.
func (o *liveOptions) noKubeconfig() bool {
	if o.explicitCluster() || os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return false
	}
	_, err := os.Stat(clientcmd.RecommendedHomeFile)
	return errors.Is(err, os.ErrNotExist)
}

// kubeconfigEnvError is a $KUBECONFIG none of whose files exist: client-go skips missing
// files of the list and would report "no configuration", so say which path is wrong, as
// for a --kubeconfig that names a missing file.
func (o *liveOptions) kubeconfigEnvError() error {
	env := os.Getenv("KUBECONFIG")
	if env == "" || (o.kube.KubeConfig != nil && *o.kube.KubeConfig != "") {
		return nil
	}
	for _, p := range filepath.SplitList(env) {
		if _, err := os.Stat(p); err == nil {
			return nil
		}
	}
	return usageErr("$KUBECONFIG names %s, which does not exist: fix the path, or unset KUBECONFIG for ~/.kube/config", env)
}
