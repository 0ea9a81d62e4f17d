package main

import (
	"context"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/kube"
)

// kubeActions adapts the cluster client to the fix runner: drain waits a bounded time for
// evicted pods, as kubectl drain does.
type kubeActions struct {
	*kube.Client
}

func (k kubeActions) Drain(ctx context.Context, node string) ([]string, error) {
	res, err := k.Client.Drain(ctx, node, kube.DrainOptions{Timeout: 2 * time.Minute})
	return res.Evicted, err
}
