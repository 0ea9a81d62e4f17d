package probes

import (
	"fmt"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// hostUptime (HOST-UPTIME): the host has rebooted within the last two monthly update
// cycles, and not within the last hour. It reads host.json alone: "now" is the node's own
// clock when the sweep ran (CollectedAt), never this machine's.
type hostUptime struct{}

// Thresholds. Microsoft releases a cumulative update for supported Windows Server
// versions every month, on the second Tuesday ("Patch Tuesday"; see "Windows release
// cycle", https://learn.microsoft.com/en-us/windows/deployment/update/release-cycle), and
// installing it takes a restart. A host up for more than 60 days has missed at least
// two of them, or has them installed and pending the restart. Within an hour of a boot
// the node components may still be starting and the network being recreated, so other
// findings may be transient.
const (
	uptimeStale  = 60 * 24 * time.Hour
	uptimeRecent = time.Hour
)

func (hostUptime) Spec() Spec {
	return Spec{ID: "HOST-UPTIME", Layouts: allLayouts(), Title: "host rebooted within two monthly update cycles, not in the last hour",
		FM: []string{"FM-08"}, Reads: []evidence.Ref{evidence.Host}}
}

func (hostUptime) Check(c C) Finding {
	host, p, bad := need(c, evidence.Host)
	if bad != nil {
		return *bad
	}
	if bad := c.hostNotShown(host, p, "LastBootUpTime", "CollectedAt"); bad != nil {
		return *bad
	}
	boot, ok := host.BootTime()
	if !ok {
		return c.Skip(fmt.Sprintf("host.json has no readable LastBootUpTime (%q)", host.LastBootUpTime), p)
	}
	now, ok := host.CollectionTime()
	if !ok {
		return c.Skip("host.json has no collection time (CollectedAt): evidence from an older wintroubleshoot", p)
	}
	up := now.Sub(boot)
	facts := fmt.Sprintf("booted %s, collected %s", boot.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	switch {
	case up < 0:
		return c.Skip("boot time is after the collection time: the node's clock moved", p).With(facts)
	case up < uptimeRecent:
		return c.Warn(fmt.Sprintf("rebooted %s ago", roundUptime(up)), p).
			With(facts, "components may still be starting and the HNS network being recreated: findings about them may be transient; collect again in a few minutes")
	case up > uptimeStale:
		return c.Warn(fmt.Sprintf("up %s without a reboot", roundUptime(up)), p).
			With(facts,
				"expected: a restart at least every 60 days; Windows cumulative updates ship monthly and take a restart to apply",
				"security and HNS fixes are likely installed and pending, or missing").
			WithFix(rebootFix(c.id, c.node))
	}
	return c.Pass(fmt.Sprintf("up %s", roundUptime(up)), p).With(facts)
}

// roundUptime says a duration the way people do: minutes, hours or days.
func roundUptime(d time.Duration) string {
	n, unit := int(d.Hours()/24), "day"
	switch {
	case d < time.Hour:
		n, unit = int(d.Minutes()), "minute"
	case d < 48*time.Hour:
		n, unit = int(d.Hours()), "hour"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func rebootFix(verify, node string) *Fix {
	return &Fix{ID: "reboot-host", Title: "Drain the node, install pending updates and restart it", Kind: Manual, Verify: verify,
		Disruptive: true, Impact: "the node's pods are evicted and the node is down for the restart",
		Commands: []string{
			"kubectl drain " + node + " --ignore-daemonsets --delete-emptydir-data",
			"sconfig, option 6 (Download and Install Updates), or the fleet's update tooling; then Restart-Computer   # on the node",
			"kubectl uncordon " + node,
		},
		Notes: []string{"before the restart, make sure kubelet, kube-proxy and the runtime start automatically (SVC-REBOOT)"}}
}
