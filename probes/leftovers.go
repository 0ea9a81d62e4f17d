package probes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// leftovers (RUNTIME-LEFTOVERS): containers or sandboxes of pods the API no longer
// has on this node (FM-09): they hold HNS endpoints and IPs, and flood the kubelet log.
type leftovers struct{}

func (leftovers) Spec() Spec {
	return Spec{ID: "RUNTIME-LEFTOVERS", Layouts: allLayouts(), Title: "no containers left from deleted pods", FM: []string{"FM-09"},
		Reads: []evidence.Ref{evidence.Containers, evidence.WindowsServices, evidence.Pods}}
}

func (leftovers) Check(c C) Finding {
	node := c.node
	ctrs, ctrPath, bad := need(c, evidence.Containers)
	if bad != nil {
		return *bad
	}
	pods, _, bad := need(c, evidence.Pods)
	if bad != nil {
		return *bad
	}
	live := map[string]bool{}
	for _, pod := range pods {
		if pod.Spec.NodeName == node {
			live[string(pod.UID)] = true
		}
	}
	orphans := map[string]string{}
	var ids []string // the leftover containers or sandboxes, in the order listed
	for _, ct := range ctrs {
		if !live[ct.PodUID] {
			orphans[ct.PodNamespace+"/"+ct.PodName] = ct.PodUID
			ids = append(ids, ct.ID)
		}
	}
	cites := []string{ctrPath, evidence.PathPods}
	if len(orphans) == 0 {
		return c.Pass(fmt.Sprintf("%d container(s), all of pods the API has on this node", len(ctrs)), cites...)
	}
	names := make([]string, 0, len(orphans))
	for n, uid := range orphans {
		names = append(names, n+" (uid "+uid+")")
	}
	sort.Strings(names)
	f := c.Fail(fmt.Sprintf("%d pod(s) deleted in the API still have containers on the node", len(orphans)), cites...).With("expected: only containers of pods scheduled here ("+fmt.Sprint(len(live))+" in the API)",
		"actual leftovers: "+strings.Join(names, ", "))
	svcs, _ := optional(c, evidence.WindowsServices)
	if _, docker := decode.FindService(svcs, "docker"); docker {
		f.Fix = &Fix{
			ID: "restart-runtime", Title: "Restart docker to clear the leftover containers", Kind: NodeScript,
			Action: "fix-restart-service", Params: map[string]any{"Name": []string{"docker"}},
			Commands:   []string{"Restart-Service -Name 'docker' -Force"},
			Disruptive: true,
			Impact:     "every container on the node stops and restarts; pods see a restart (drain first to move them)",
			Verify:     c.id,
			Notes:      []string{"one by one instead: docker rm -f <id>", "a VHD still attached after this needs a reboot"},
			Precheck:   "leftover containers still present",
		}
		return f
	}
	// containers.json on containerd is `crictl pods`: the IDs are the leftover sandboxes.
	// Restarting containerd would not clear them: its shims (containerd-shim-runhcs-v1)
	// outlive the service and keep the sandboxes, so each is stopped (CNI teardown, which
	// frees its HNS endpoint) and removed (cri-tools docs/crictl.md: stopp, rmp).
	cmds := make([]string, 0, 2*len(ids))
	for _, id := range ids {
		cmds = append(cmds, "crictl --runtime-endpoint "+containerdEndpoint+" stopp "+id,
			"crictl --runtime-endpoint "+containerdEndpoint+" rmp "+id)
	}
	f.Fix = &Fix{
		ID: "remove-sandboxes", Title: fmt.Sprintf("Stop and remove the %d leftover pod sandbox(es)", len(ids)), Kind: NodeScript,
		Action: "fix-remove-sandboxes", Params: map[string]any{"Id": ids},
		Commands: cmds,
		Impact:   "only these sandboxes stop, which the API no longer has; every other pod keeps running",
		Verify:   c.id,
		Notes:    []string{"an ID that is gone by then is reported and skipped", "a VHD still attached after this needs a reboot"},
		Precheck: "leftover sandboxes still present",
	}
	return f
}

// containerdEndpoint is containerd's CRI pipe on Windows, passed to crictl explicitly:
// without it crictl tries its deprecated defaults and warns (kubernetes-sigs/cri-tools#703).
const containerdEndpoint = "npipe:////./pipe/containerd-containerd"
