package probes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
)

// LeftoversProbe (RUNTIME-LEFTOVERS): containers or sandboxes of pods the API no longer
// has on this node (FM-09): they hold HNS endpoints and IPs, and flood the kubelet log.
type LeftoversProbe struct{}

func (LeftoversProbe) ID() string    { return "RUNTIME-LEFTOVERS" }
func (LeftoversProbe) Title() string { return "no containers left from deleted pods" }
func (LeftoversProbe) Needs() []string {
	return []string{collectors.NodeContainers, collectors.NodeServices, collectors.ClusterPods}
}

func (p LeftoversProbe) Check(node string, ev collectors.Evidence) []Finding {
	c := check{p.ID(), node, ev}
	ctrs, ctrPath, bad := nodeFile(c, collectors.NodeContainers, decode.DecodeContainers)
	if bad != nil {
		return []Finding{*bad}
	}
	pods, err := readDecode(ev, collectors.ClusterPods, decode.Pods)
	if err != nil {
		return []Finding{c.problem(collectors.ClusterPods, err)}
	}
	live := map[string]bool{}
	for _, pod := range pods {
		if pod.Spec.NodeName == node {
			live[string(pod.UID)] = true
		}
	}
	orphans := map[string]string{}
	for _, ct := range ctrs {
		if !live[ct.PodUID] {
			orphans[ct.PodNamespace+"/"+ct.PodName] = ct.PodUID
		}
	}
	evidence := []string{ctrPath, collectors.ClusterPods}
	if len(orphans) == 0 {
		f := c.finding(Pass, fmt.Sprintf("%d container(s), all of pods the API has on this node", len(ctrs)))
		f.Evidence = evidence
		return []Finding{f}
	}
	names := make([]string, 0, len(orphans))
	for n, uid := range orphans {
		names = append(names, n+" (uid "+uid+")")
	}
	sort.Strings(names)
	f := c.finding(Fail, fmt.Sprintf("%d pod(s) deleted in the API still have containers on the node", len(orphans)),
		"expected: only containers of pods scheduled here ("+fmt.Sprint(len(live))+" in the API)",
		"actual leftovers: "+strings.Join(names, ", "))
	svcs, _ := optional(c, collectors.NodeServices, decode.DecodeServices)
	runtime := "containerd"
	if _, ok := decode.FindService(svcs, "docker"); ok {
		runtime = "docker"
	}
	f.Fix = &Fix{
		ID: "restart-runtime", Title: "Restart " + runtime + " to clear the leftover containers", Kind: NodeScript,
		Action: "fix-restart-service", Params: map[string]any{"Name": []string{runtime}},
		Commands:   []string{"Restart-Service -Name " + psQuote(runtime) + " -Force"},
		Disruptive: true,
		Impact:     "every container on the node stops and restarts; pods see a restart (drain first to move them)",
		Verify:     p.ID(),
		Notes:      []string{"one by one instead: docker rm -f <id>, or crictl stopp <id>; crictl rmp <id>", "a VHD still attached after this needs a reboot"},
		Precheck:   "leftover containers still present",
	}
	f.Evidence = evidence
	return []Finding{f}
}
