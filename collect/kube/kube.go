// Package kube talks to the Kubernetes API with client-go. It finds the Windows nodes,
// writes the cluster evidence (API objects exactly as `kubectl get ... -o json` prints
// them) and carries out the API calls fixes need: set a podCIDR, taint, cordon, drain,
// delete a node, and read the node password Secret.
package kube

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Client is a clientset bound to one kubeconfig context.
type Client struct {
	// listed holds the names of the cluster's nodes once Collect has listed them: node
	// log query asks only a cluster that answered, about nodes it has.
	listed    atomic.Pointer[map[string]bool]
	cs        kubernetes.Interface
	rest      *rest.Config // for pods/exec and node proxy streams
	context   string       // kubeconfig context in use, named in every error
	server    string       // API server URL, named when it cannot be reached
	namespace string       // -n, else the context's namespace, else "default"
	timeout   requestTimeout
}

// userAgent identifies the tool in API server audit logs.
const userAgent = "wintroubleshoot"

// New builds a client from kubectl-style flags (genericclioptions.ConfigFlags), so
// --kubeconfig, --context and -n behave as they do for kubectl, with the default rate
// limit (DefaultRateLimit).
func New(getter genericclioptions.RESTClientGetter) (*Client, error) {
	return NewWithLimit(getter, RateLimit{})
}

// NewWithLimit is New with the client's own rate limit (RateLimit; zero fields take
// DefaultRateLimit's).
func NewWithLimit(getter genericclioptions.RESTClientGetter, limit RateLimit) (*Client, error) {
	loader := getter.ToRawKubeConfigLoader()
	raw, rawErr := loader.RawConfig()
	name := contextName(getter, raw)
	if _, ok := raw.Contexts[name]; rawErr == nil && name != "" && !ok {
		// client-go's own message for this names neither the file nor the alternatives.
		return nil, configError(errContextNotFound, name, raw, nil)
	}
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return nil, configError(err, name, raw, rawErr)
	}
	ns, _, err := loader.Namespace()
	if err != nil || ns == "" {
		ns = "default"
	}
	cfg.UserAgent = userAgent
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg.QPS, cfg.Burst = limit.resolve()
	}
	timeout := applyRequestTimeout(getter, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating a Kubernetes client for context %q (%s): %w", name, cfg.Host, err)
	}
	return &Client{cs: cs, rest: cfg, context: name, server: cfg.Host, namespace: ns, timeout: timeout}, nil
}

// Interface is the clientset.
func (c *Client) Interface() kubernetes.Interface { return c.cs }

// RESTConfig is the client's configuration, for streams (exec) clientsets do not cover.
func (c *Client) RESTConfig() *rest.Config { return c.rest }

// Context is the kubeconfig context in use.
func (c *Client) Context() string { return c.context }

// Server is the API server URL.
func (c *Client) Server() string { return c.server }

// RequestTimeout bounds each API request: --request-timeout, else DefaultRequestTimeout.
func (c *Client) RequestTimeout() time.Duration { return c.timeout.d }

// Namespace is the default namespace (-n, or the context's).
func (c *Client) Namespace() string { return c.namespace }

// contextName is the context kubectl would use: --context, else current-context.
func contextName(getter genericclioptions.RESTClientGetter, raw clientcmdapi.Config) string {
	if f, ok := getter.(*genericclioptions.ConfigFlags); ok && f.Context != nil && *f.Context != "" {
		return *f.Context
	}
	return raw.CurrentContext
}

// errContextNotFound marks a --context (or current-context) the kubeconfig lacks.
const errContextNotFound = constErr("context not found")

type constErr string

func (e constErr) Error() string { return string(e) }

// configError turns a kubeconfig problem into advice: which contexts exist, or where a
// kubeconfig is looked for.
func configError(err error, name string, raw clientcmdapi.Config, rawErr error) error {
	names := make([]string, 0, len(raw.Contexts))
	for n := range raw.Contexts {
		names = append(names, n)
	}
	sort.Strings(names)
	list := strings.Join(names, ", ")
	switch {
	case rawErr != nil:
		return fmt.Errorf("reading kubeconfig: %w", rawErr)
	case (errors.Is(err, errContextNotFound) || clientcmd.IsContextNotFound(err)) && len(names) > 0:
		return fmt.Errorf("kubeconfig context %q does not exist; contexts that do: %s (choose with --context; list them with `kubectl config get-contexts`)", name, list)
	case errors.Is(err, errContextNotFound) || clientcmd.IsContextNotFound(err):
		return fmt.Errorf("kubeconfig context %q does not exist, and the kubeconfig defines no contexts (pass --kubeconfig or set KUBECONFIG)", name)
	case clientcmd.IsEmptyConfig(err) && len(names) > 0:
		return fmt.Errorf("kubeconfig has no current-context; choose one with --context: %s", list)
	case clientcmd.IsEmptyConfig(err):
		return fmt.Errorf("no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config (%w)", err)
	}
	return fmt.Errorf("loading kubeconfig context %q: %w", name, err)
}
