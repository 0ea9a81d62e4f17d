package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hostResources (HOST-RESOURCES): TCP dynamic ports and memory commit have headroom
// (FM-19). Every outbound connection of the node and of its
// process-isolated pods (SNAT through the host) takes a port of the dynamic range
// (49152-65535, 16384 ports, by default; `netsh int ipv4 show dynamicport tcp`); when
// they run out, connects fail with WSAEADDRINUSE / "Only one usage of each socket
// address" and kube-proxy, the kubelet and pods time out. microsoft/SDN's collectlogs
// and networkhealth count the bound ports by process for this reason, and Microsoft's
// "Troubleshoot port exhaustion issues" guide names 80% as where to start looking.
// Commit: when committed memory reaches the commit limit (RAM plus pagefile),
// allocations fail with ERROR_COMMITMENT_LIMIT (1455, "The paging file is too small for
// this operation to complete") and containers fail to start. Excluded ranges inside the
// dynamic range count as taken: HNS reserves 64-port blocks there for kube-proxy's
// non-DSR load balancers (kubernetes/website#17930), and Azure/AKS#1375 is DNS from
// Windows pods failing when the node ran out.
type hostResources struct{}

const (
	portWarnPct   = 80
	portFailPct   = 95
	commitWarnPct = 90
	commitFailPct = 98
)

func (hostResources) Spec() Spec {
	return Spec{ID: "HOST-RESOURCES", Title: "TCP dynamic ports and memory commit have headroom",
		FM: []string{"FM-19", "FM-28"}, Reads: []evidence.Ref{evidence.Resources}}
}

func (hostResources) Check(c C) Finding {
	r, p, bad := need(c, evidence.Resources)
	if bad != nil {
		return c.notCollected(p, bad)
	}
	worst, summary := Pass, ""
	var details []string
	var fixes []*Fix
	judge := func(s Status, msg string) {
		details = append(details, msg)
		if s > worst {
			worst, summary = s, msg
		}
	}
	if r.DynamicPortCount > 0 {
		used := r.DynamicPortsInUse + r.ExcludedPorts
		pct := float64(used) * 100 / float64(r.DynamicPortCount)
		msg := fmt.Sprintf("%d of %d dynamic TCP ports (%d-%d) taken (%.0f%%): %d bound by %d TCP connections, %d excluded (reserved)", used, r.DynamicPortCount,
			r.DynamicPortStart, r.DynamicPortStart+r.DynamicPortCount-1, pct, r.DynamicPortsInUse, r.TCPConnections, r.ExcludedPorts)
		switch {
		case pct >= portFailPct:
			judge(Fail, msg+": the range is exhausted, new outbound connections fail")
			fixes = append(fixes, portsFix(c.id, r.TopOwners))
		case pct >= portWarnPct:
			judge(Warn, msg+": near exhaustion")
			fixes = append(fixes, portsFix(c.id, r.TopOwners))
		default:
			judge(Pass, msg)
		}
		var owners []string
		for _, o := range r.TopOwners {
			if timeWaitOwner(o) {
				owners = append(owners, fmt.Sprintf("%d in TIME_WAIT (pid %d, closed connections the stack keeps; no process holds them)", o.Count, o.ProcessId))
				continue
			}
			owners = append(owners, fmt.Sprintf("%s (pid %d) %d", o.Name, o.ProcessId, o.Count))
		}
		if len(owners) > 0 {
			details = append(details, "most ports held by: "+strings.Join(owners, ", "))
		}
	} else {
		details = append(details, "no dynamic port range recorded")
	}
	if r.CommitLimit > 0 {
		pct := float64(r.CommittedBytes) * 100 / float64(r.CommitLimit)
		msg := fmt.Sprintf("memory commit %.1f of %.1f GiB (%.0f%%)", gib(int64(r.CommittedBytes)), gib(int64(r.CommitLimit)), pct)
		switch {
		case pct >= commitFailPct:
			judge(Fail, msg+": at the commit limit, allocations fail (ERROR_COMMITMENT_LIMIT) and containers cannot start")
			fixes = append(fixes, commitFix(c.id))
		case pct >= commitWarnPct:
			judge(Warn, msg+": near the commit limit")
			fixes = append(fixes, commitFix(c.id))
		default:
			judge(Pass, msg)
		}
	}
	if r.TotalMemoryKB > 0 {
		details = append(details, fmt.Sprintf("physical memory %.1f GiB free of %.1f GiB", gib(int64(r.FreeMemoryKB)*1024), gib(int64(r.TotalMemoryKB)*1024)))
	}
	if worst == Pass {
		if len(details) == 0 {
			return c.Skip("resources.json has neither a port range nor a commit limit", p)
		}
		return c.Pass(details[0], p).With(details[1:]...)
	}
	f := c.Judge(worst, summary, p).With(details...)
	if len(fixes) > 0 {
		f = f.WithFix(fixes[0])
	}
	return f
}

func portsFix(verify string, owners []decode.PortOwner) *Fix {
	cmds := []string{
		"Get-NetTCPConnection | Group-Object OwningProcess, State | Sort-Object Count -Descending | Select -First 10   # who holds them",
	}
	notes := []string{"kube-proxy's and the CNI's SNAT share the node's dynamic ports with every pod's outbound connections"}
	if len(owners) > 0 && timeWaitOwner(owners[0]) {
		// TIME_WAIT connections have no process any more: Get-NetTCPConnection and
		// netstat -ano show them under pid 0 ("Idle"), which cannot be restarted.
		cmds = append(cmds,
			"Get-NetTCPConnection -State TimeWait | Group-Object RemoteAddress, RemotePort | Sort-Object Count -Descending | Select -First 10   # whose short connections they were",
			"fix the client that opens and closes them (reuse connections: HTTP keep-alive, connection pooling), or shorten TIME_WAIT: HKLM\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters TcpTimedWaitDelay (30-300 s), then restart the node")
		notes = append(notes, fmt.Sprintf("the largest holder, %s (pid %d), is the TCP stack's TIME_WAIT: closed connections kept for TcpTimedWaitDelay, whose process is gone; nothing to restart", owners[0].Name, owners[0].ProcessId),
			"Microsoft's \"Troubleshoot port exhaustion issues\" (learn.microsoft.com, TCP/IP): TIME_WAIT connections show as pid 0; TcpTimedWaitDelay and connection reuse are the remedies")
	} else if len(owners) > 0 {
		cmds = append(cmds, fmt.Sprintf("restart or fix %s (pid %d), the largest holder, if its connections are leaked", owners[0].Name, owners[0].ProcessId))
	}
	cmds = append(cmds, "netsh int ipv4 set dynamicport tcp start=10000 num=55535   # widen the range if the load is real (check reserved and excluded ranges first: netsh int ipv4 show excludedportrange tcp)")
	return &Fix{ID: "free-dynamic-ports", Title: "Find what holds the TCP dynamic ports, and widen the range if the load is real", Kind: Manual, Verify: verify,
		Commands: cmds, Notes: notes}
}

// timeWaitOwner: pid 0 ("Idle", "System Idle Process") owns the connections in TIME_WAIT.
func timeWaitOwner(o decode.PortOwner) bool {
	return o.ProcessId == 0 || strings.EqualFold(string(o.Name), "Idle") || strings.EqualFold(string(o.Name), "System Idle Process")
}

func commitFix(verify string) *Fix {
	return &Fix{ID: "free-commit", Title: "Reduce committed memory or enlarge the pagefile", Kind: Manual, Verify: verify,
		Commands: []string{
			"Get-Process | Sort-Object PagedMemorySize64 -Descending | Select -First 10 Name, Id, PagedMemorySize64",
			"set pod memory limits, or reserve memory for the system (kubelet --system-reserved memory=2Gi), or enlarge the pagefile",
		}}
}
