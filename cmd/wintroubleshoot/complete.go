package main

import (
	"context"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transports"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// completionTimeout bounds the one API call node-name completion makes: a shell waiting
// on a dead cluster is worse than no suggestions.
const completionTimeout = 3 * time.Second

// wireTree adds what applies across commands, after they are built: shell completion
// for probe IDs, node names, scenarios and transports, and the flag marks of commands
// whose flags are defined elsewhere (fix's --node is required). -o and --fail-on
// complete where outputOptions defines them.
func wireTree(root *cobra.Command, kube *genericclioptions.ConfigFlags) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		wireCommand(c, kube)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func wireCommand(c *cobra.Command, kube *genericclioptions.ConfigFlags) {
	c.Example = indentExample(c.Example)
	has := func(name string) bool { return c.Flags().Lookup(name) != nil }
	if has("transport") {
		_ = c.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions(transports.Registry().Completions(), cobra.ShellCompDirectiveNoFileComp))
	}
	switch c.Name() {
	case "analyze":
		// Node names come from the evidence named by the argument.
		_ = c.RegisterFlagCompletionFunc("node", func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			ev, _, closer, err := bundle.OpenEvidence(cmd.Context(), args[0])
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			defer closer.Close()
			return ev.Nodes(), cobra.ShellCompDirectiveNoFileComp
		})
	case "fix":
		_ = c.MarkFlagRequired("node")
		c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return probeCompletions(), cobra.ShellCompDirectiveNoFileComp
		}
		_ = c.RegisterFlagCompletionFunc("node", clusterNodes(kube, ""))
	default:
		if has("node") && c.Flags().Lookup("node").Value.Type() == "stringArray" {
			// --node NAME=HOST: complete the name and let the person type the address.
			_ = c.RegisterFlagCompletionFunc("node", clusterNodes(kube, "="))
		}
	}
}

// probeCompletions are the registry's probe IDs with their titles.
func probeCompletions() []cobra.Completion {
	var out []cobra.Completion
	for _, p := range probes.Default().Probes() {
		out = append(out, p.ID()+"\t"+p.Title())
	}
	return out
}

// clusterNodes completes the Windows node names of the cluster the kubectl flags pick,
// with suffix appended (no space after it when there is one).
func clusterNodes(kube *genericclioptions.ConfigFlags, suffix string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		dir := cobra.ShellCompDirectiveNoFileComp
		if suffix != "" {
			dir |= cobra.ShellCompDirectiveNoSpace
		}
		names, err := windowsNodeNames(cmd.Context(), kube)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		for i := range names {
			names[i] += suffix
		}
		return names, dir
	}
}

// windowsNodeNames is one List of the Windows nodes: cheap enough for completion, unlike
// the full cluster collection a run does.
func windowsNodeNames(ctx context.Context, kube *genericclioptions.ConfigFlags) ([]string, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := kube.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.Timeout = completionTimeout
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, completionTimeout)
	defer cancel()
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/os=windows"})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range list.Items {
		names = append(names, n.Name)
	}
	sort.Strings(names)
	return names, nil
}

// indentExample indents every line of an example by two spaces, as cobra's help expects:
// strings.TrimSpace on a raw literal strips the first line's indentation.
func indentExample(ex string) string {
	if ex == "" {
		return ex
	}
	lines := strings.Split(ex, "\n")
	for i, l := range lines {
		if l != "" && !strings.HasPrefix(l, "  ") {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}
