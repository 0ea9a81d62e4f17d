package hostprocess

import (
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// createHint says what to do about a refused pod: PodSecurity admission (the namespace
// enforces baseline or restricted, which forbid hostProcess and hostNetwork), RBAC, or a
// missing namespace.
func (r *Run) createHint(err error) string {
	ns := r.opts.Namespace
	switch {
	case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "violates PodSecurity"):
		return "HostProcess pods need PodSecurity privileged: kubectl label namespace " + ns +
			" pod-security.kubernetes.io/enforce=privileged, or pick such a namespace with --hostprocess-namespace"
	case apierrors.IsForbidden(err):
		return r.rbacHint()
	case apierrors.IsNotFound(err):
		return "kubectl create namespace " + ns + " (and label it pod-security.kubernetes.io/enforce=privileged)"
	}
	return ""
}

func (r *Run) rbacHint() string {
	return "the hostprocess transport needs pods create/get/list/watch/delete and pods/exec create in namespace " +
		r.opts.Namespace + ": see docs/rbac.yaml"
}

// startHint says what to do about a pod that did not start.
func startHint(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "ImagePullBackOff"), strings.Contains(msg, "ErrImagePull"):
		return "the node cannot pull the image: check its registry access, or mirror the image and pass --hostprocess-image"
	case errors.Is(err, errNotStarting):
		return "kubectl describe pod shows the kubelet's events"
	case strings.Contains(msg, "not running after"):
		return "the node's kubelet did not start the pod in time: kubectl get node; kubectl describe pod"
	}
	return ""
}
