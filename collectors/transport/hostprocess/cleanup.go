package hostprocess

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// removeLeftovers runs once per run, before its first pod: it deletes the pods earlier
// runs left behind (a run killed before it could delete them). A pod is a leftover when
// it is this tool's (label), of another run, and past the time its run said it needed it
// (ExpiresAnnotation); without a readable annotation, when it is older than podLifetime.
// A run going on at the same time keeps its pods: they have not expired.
func (r *Run) removeLeftovers(ctx context.Context) error {
	r.once.Do(func() { r.swept = r.sweepLeftovers(ctx) })
	return r.swept
}

func (r *Run) sweepLeftovers(ctx context.Context) error {
	pods := r.opts.Client.CoreV1().Pods(r.opts.Namespace)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: ManagedByLabel + "=" + ManagedByValue + "," + RunLabel + "!=" + r.id})
	if err != nil {
		return fmt.Errorf("listing earlier runs' pods: %w", err)
	}
	var removed []string
	for _, p := range list.Items {
		if !expired(p.Annotations[ExpiresAnnotation], p.CreationTimestamp.Time, r.started) {
			continue
		}
		if err := r.deletePod(ctx, p.Name); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the leftover pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		removed = append(removed, fmt.Sprintf("%s (node %s, run %s)", p.Name, p.Spec.NodeName, p.Labels[RunLabel]))
	}
	if len(removed) > 0 {
		r.warn(fmt.Sprintf("removed %d pod(s) an earlier run left in namespace %s: %s",
			len(removed), r.opts.Namespace, strings.Join(removed, ", ")))
	}
	return nil
}

func expired(annotation string, created, now time.Time) bool {
	if t, err := time.Parse(time.RFC3339, annotation); err == nil {
		return t.Before(now)
	}
	return created.Add(podLifetime).Before(now)
}
