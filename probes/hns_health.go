package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hnsHealth (HNS-HEALTH): the Host Network Service runs and is not deadlocked (FM-18).
//
// The deadlock sign is the thread count of HNS's process, as microsoft/SDN reads it
// (Kubernetes/windows/debug @ 242fb0c):
//   - networkhealth.ps1 HNSPotentialDeadlock: more than $HNS_THREAD_COUNT_THRESHOLD (200)
//     threads fails with "Thread count too high, HNS has likely entered a deadlock
//     state", resolution "Restart the computer";
//   - hnsautomitigator/hnsautomitigator2019.yaml: from $highHnsThreadCount (200) it asks
//     HNS for every endpoint's stats (Invoke-HnsRequest -Method GET -Type endpointstats)
//     and mitigates when one does not answer in 5 s; from $criticalHnsThreadCount (1000)
//     it mitigates at once: taskkill /pid <hns> /f, Restart-Service -f hns, and ten
//     minutes later Restart-Service -f kubeproxy. (Its endpointstats test cannot see a
//     deadlock as written: the Start-Job scriptblock uses $hnsID without $using: and runs
//     in a new process that never imported hns.v2.psm1, so the job fails at once and
//     "succeeds"; only the 1000 branch mitigates.)
//
// So 200 or more is suspicious (warn) and 1000 or more is a deadlock (fail). A healthy
// HNS has far fewer; no source read gives a typical count (the failure catalogue marks "tens" as not
// verified), so the scenarios' healthy values (30 to 60) are an assumption, and nothing
// here depends on them. Where other services share HNS's svchost.exe (svchost splitting
// off below 3.5 GB of memory), the count is theirs too and the probe says so instead of
// failing.
type hnsHealth struct{}

// The thresholds of hnsautomitigator2019.yaml.
const (
	hnsThreadsHigh     = 200
	hnsThreadsCritical = 1000
)

func (hnsHealth) Spec() Spec {
	return Spec{ID: "HNS-HEALTH", Layouts: allLayouts(), Title: "the Host Network Service runs and is not deadlocked (its thread count)",
		FM: []string{"FM-18"}, Reads: []evidence.Ref{evidence.HNSHealth, evidence.WindowsServices}}
}

func (hnsHealth) Check(c C) Finding {
	h, path, bad := need(c, evidence.HNSHealth)
	if bad != nil {
		if why := c.ev.CollectError(path); strings.Contains(why, "hns service is not installed") {
			return c.Fail("the Host Network Service (hns) is not installed", path).
				With("HNS comes with the Containers feature: Install-WindowsFeature -Name Containers; Restart-Computer (failure mode FM-22)")
		}
		return c.notCollected(path, bad)
	}
	if !h.Running() {
		return c.Fail(fmt.Sprintf("the Host Network Service is %s", h.State), path).
			With("without HNS no pod gets a network and kube-proxy cannot program its load balancers").
			WithFix(startFix(c.id, []string{"hns"}))
	}
	proc := fmt.Sprintf("HNS process %d: %d threads, %d handles, %d MB working set", h.ProcessId, h.Threads, h.Handles, h.WorkingSetMB)
	if h.SharedCount > 0 {
		shared := fmt.Sprintf("the process is a svchost.exe shared with %d other service(s) (%s): the counts are theirs too",
			h.SharedCount, strings.Join(h.SharedWith, ", "))
		if h.Threads < hnsThreadsHigh {
			return c.Pass(fmt.Sprintf("HNS runs; its shared process has %d threads, below %d", h.Threads, hnsThreadsHigh), path).With(proc, shared)
		}
		return c.Warn(fmt.Sprintf("HNS's shared process has %d threads: cannot tell whether HNS is deadlocked", h.Threads), path).
			With(proc, shared,
				"to tell, ask HNS for an endpoint's stats: Invoke-HnsRequest -Method GET -Type endpointstats -Id <endpoint id> (hnsautomitigator's test); no answer within seconds is a deadlock",
				"to count HNS's threads alone, give it its own process: sc.exe config hns type= own, then restart HNS (disruptive)")
	}
	switch {
	case h.Threads >= hnsThreadsCritical:
		return c.Fail(fmt.Sprintf("HNS has %d threads (%d or more): it is deadlocked", h.Threads, hnsThreadsCritical), path).
			With(proc, "hnsautomitigator restarts HNS at this count; networkhealth reports a likely deadlock from 200",
				"while deadlocked, pod creation hangs and kube-proxy cannot program policies").
			WithFix(restartHNSFix(c, h))
	case h.Threads >= hnsThreadsHigh:
		return c.Warn(fmt.Sprintf("HNS has %d threads (%d or more): possibly deadlocked", h.Threads, hnsThreadsHigh), path).
			With(proc, "networkhealth fails above 200 threads (\"HNS has likely entered a deadlock state\"); hnsautomitigator first checks that HNS still answers",
				"check: Invoke-HnsRequest -Method GET -Type endpointstats -Id <endpoint id> (C:\\k\\hns.v2.psm1); no answer within 5 s is a deadlock").
			WithFix(restartHNSFix(c, h))
	}
	return c.Pass(fmt.Sprintf("HNS runs with %d threads, below %d", h.Threads, hnsThreadsHigh), path).With(proc)
}

// restartHNSFix is hnsautomitigator's mitigation as a node script: restart HNS (ending
// its process when it does not stop, which a deadlocked HNS may not), then restart
// kube-proxy so it reprograms its policies. kube-proxy is restarted only where it is a
// service; a HostProcess kube-proxy is left to its pod.
func restartHNSFix(c C, h decode.HNSHealth) *Fix {
	kp := ""
	svcs, _ := optional(c, evidence.WindowsServices)
	for _, name := range kubeProxyComponent().services {
		if s, ok := decode.FindService(svcs, name); ok {
			kp = s.Name
			break
		}
	}
	cmds := []string{
		"Restart-Service -Name hns -Force   # bounded to 60 s",
		fmt.Sprintf("Stop-Process -Id <HNS's process, %d at collection> -Force   # only if HNS did not stop, and only while that process holds HNS alone", h.ProcessId),
		"Start-Service -Name hns",
	}
	notes := []string{"networkhealth's resolution for a deadlock is a restart of the computer (Restart-Computer, after a drain) when this does not clear it",
		"collect `wintroubleshoot snapshot` and microsoft/SDN collectlogs.ps1 first if Microsoft support should see the deadlock"}
	if kp != "" {
		cmds = append(cmds, "Restart-Service -Name "+psQuote(kp)+" -Force")
	} else {
		notes = append(notes, "kube-proxy is not a service here: delete its pod (kubectl -n kube-system delete pod <kube-proxy pod on this node>) so it reprograms the load balancers")
	}
	return &Fix{ID: "restart-hns", Title: "Restart HNS, then kube-proxy", Kind: NodeScript, Action: "fix-restart-hns",
		Params: map[string]any{"KubeProxy": kp}, Commands: cmds, Disruptive: true,
		Impact:   "every pod on the node loses networking until HNS and kube-proxy have rebuilt their state",
		Verify:   c.id,
		Notes:    notes,
		Precheck: fmt.Sprintf("HNS still has %d or more threads", hnsThreadsHigh)}
}
