package probes

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hostFirewall (HOST-FIREWALL): the Windows Firewall lets the control plane reach the
// kubelet on TCP 10250 (FM-26). The API server connects to it for `kubectl logs`, `exec`,
// `attach` and `port-forward`, and metrics-server scrapes it; when the firewall drops the
// port those time out while the node stays Ready (its own connections out are not
// filtered). Windows Server's firewall is on with inbound Block by default, so every
// layout that keeps it on opens the port: sig-windows-tools PrepareNode.ps1 (`New-NetFirewallRule
// -Name kubelet ... -LocalPort 10250`), microsoft/SDN helper.v2.psm1 (KubeletAllow10250),
// Calico's install-calico-windows.ps1 (KubectlExec10250), Antrea's Prepare-Node.ps1; AKS
// turns the firewall off (AgentBaker kuberneteswindowssetup.ps1 `netsh advfirewall set
// allprofiles state off`). A block rule wins over any allow rule in Windows Firewall, so
// one that covers the port closes it whatever else is open.
//
// The rules come from the active store, Group Policy's included. Not judged: a rule's
// remote-address scope (an allow rule limited to some addresses may still drop the API
// server's), and IPsec or network firewalls between the control plane and the node.
type hostFirewall struct{}

const kubeletPort = 10250

func (hostFirewall) Spec() Spec {
	return Spec{ID: "HOST-FIREWALL", Layouts: allLayouts(), Title: "the Windows Firewall lets the API server reach the kubelet on TCP 10250",
		FM: []string{"FM-26"}, Reads: []evidence.Ref{evidence.Firewall, evidence.IPAddresses, evidence.ClusterNodes}}
}

func (hostFirewall) Check(c C) Finding {
	fw, p, bad := need(c, evidence.Firewall)
	if bad != nil {
		return c.notCollected(p, bad)
	}
	// The API server dials the node's InternalIP: the profile of the interface holding it
	// is the one that applies (other interfaces, HNS's internal vNICs among them, may sit
	// in another profile).
	addr := ""
	if nodes, ok := optional(c, evidence.ClusterNodes); ok {
		if self, err := findNode(c.ev, nodes, c.node); err == nil && decode.UnknownFields(self) == nil { // a pasted table shows no address to trust
			addr = decode.NodeAddress(self, corev1.NodeInternalIP)
		}
	}
	alias, cites := c.interfaceOf(addr)
	cites = append([]string{p}, cites...)
	v := judgePort(fw, "TCP", kubeletPort, "kubelet.exe", alias)
	notes := []string{"not judged: rules' remote-address scopes, and firewalls outside the node (cloud security groups, NSGs)"}
	if len(v.closed) == 0 {
		return c.Pass("inbound TCP 10250 is open: "+strings.Join(v.open, "; "), cites...).With(notes...)
	}
	f := c.Fail("the Windows Firewall drops inbound TCP 10250 (the kubelet): "+strings.Join(v.closed, "; "), cites...).
		With("kubectl logs, exec, attach and port-forward to pods on this node time out, and metrics-server cannot scrape it; the node stays Ready").
		With(v.open...).With(notes...)
	target := addr
	if target == "" {
		target = "<node InternalIP>"
	}
	f = f.With("to confirm from a control-plane host: curl -sk -m 5 https://" + target + ":10250/healthz (a timeout, not a 401, is the firewall)")
	if len(v.blockers) > 0 {
		return f.WithFix(unblockFix(c.id, v.blockers, "TCP 10250"))
	}
	return f.WithFix(&Fix{ID: "firewall-kubelet", Title: "Allow inbound TCP 10250 to the kubelet (sig-windows-tools PrepareNode.ps1's rule)",
		Kind: NodeScript, Action: "fix-firewall-kubelet", Verify: c.id,
		Commands: []string{"New-NetFirewallRule -Name kubelet -DisplayName 'kubelet' -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 10250"},
		Precheck: "no enabled inbound rule allows TCP 10250",
		Notes: []string{"a Group Policy that does not merge local rules (\"Apply local firewall rules: No\") ignores this rule: add it to the GPO instead",
			"kubernetes-sigs/sig-windows-tools hostprocess/PrepareNode.ps1"}})
}

// portVerdict is how the firewall treats inbound traffic to one port, per profile that
// applies: open lists why it passes, closed why it is dropped, blockers the block rules
// that cover it.
type portVerdict struct {
	open, closed []string
	blockers     []decode.FirewallRule
}

// interfaceOf names the interface holding the address (ip-addresses.json), "" when
// either is unknown, with the evidence it read.
func (c C) interfaceOf(addr string) (string, []string) {
	if addr == "" {
		return "", nil
	}
	ips, ok := optional(c, evidence.IPAddresses)
	if !ok {
		return "", nil
	}
	for _, a := range ips {
		if string(a.IPAddress) == addr {
			return string(a.InterfaceAlias), []string{c.Path(evidence.IPAddresses)}
		}
	}
	return "", nil
}

// judgePort applies the firewall's rules to inbound proto/port for each profile that
// applies: the connection profile of the interface alias when it has one, else every
// connection's (all three when none was collected). exe, when set, also counts rules
// limited to that program. Per profile: off passes; a block rule that covers the port
// drops it; else an allow rule passes it; else the default inbound action decides.
func judgePort(fw decode.Firewall, proto string, port int, exe, alias string) portVerdict {
	applies := map[int][]string{}
	add := func(cp decode.ConnectionProfile) {
		if b := cp.Bit(); b != 0 {
			applies[b] = append(applies[b], string(cp.InterfaceAlias))
		}
	}
	for _, cp := range fw.ConnectionProfiles {
		if alias != "" && strings.EqualFold(string(cp.InterfaceAlias), alias) {
			add(cp)
		}
	}
	if len(applies) == 0 {
		for _, cp := range fw.ConnectionProfiles {
			add(cp)
		}
	}
	if len(applies) == 0 {
		for _, b := range []int{decode.ProfileDomain, decode.ProfilePrivate, decode.ProfilePublic} {
			applies[b] = nil
		}
	}
	var v portVerdict
	seen := map[string]bool{}
	for _, bit := range []int{decode.ProfileDomain, decode.ProfilePrivate, decode.ProfilePublic} {
		ifaces, ok := applies[bit]
		if !ok {
			continue
		}
		name := decode.ProfileName(bit)
		if len(ifaces) > 0 {
			name += " (" + strings.Join(ifaces, ", ") + ")"
		}
		prof := decode.FirewallProfile{Name: decode.Str(decode.ProfileName(bit))} // absent: Windows' defaults, on and Block
		for _, fp := range fw.Profiles {
			if fp.Bit() == bit {
				prof = fp
			}
		}
		if !prof.On() {
			v.open = append(v.open, name+": firewall off")
			continue
		}
		var allow, block []string
		for _, r := range fw.Rules {
			if r.Profiles()&bit == 0 || !r.Matches(proto, port) || !(r.AnyProgram() || exe != "" && r.ForProgram(exe)) {
				continue
			}
			label := ruleLabel(r)
			switch {
			case r.Blocks():
				block = append(block, label)
				if !seen[string(r.Name)] {
					seen[string(r.Name)] = true
					v.blockers = append(v.blockers, r)
				}
			case r.Allows():
				allow = append(allow, label)
			}
		}
		switch {
		case len(block) > 0:
			v.closed = append(v.closed, fmt.Sprintf("%s: block rule %s (a block rule wins over allow rules)", name, strings.Join(block, ", ")))
		case len(allow) > 0:
			v.open = append(v.open, fmt.Sprintf("%s: allowed by %s", name, strings.Join(allow, ", ")))
		case !prof.BlocksInbound():
			v.open = append(v.open, name+": default inbound action Allow")
		default:
			v.closed = append(v.closed, fmt.Sprintf("%s: firewall on, inbound Block by default, and no enabled rule allows %s %d", name, proto, port))
		}
	}
	return v
}

func ruleLabel(r decode.FirewallRule) string {
	l := fmt.Sprintf("%q", string(r.Name))
	if r.DisplayName != "" && r.DisplayName != r.Name {
		l += fmt.Sprintf(" (%s)", r.DisplayName)
	}
	if strings.EqualFold(string(r.PolicyStoreSourceType), "GroupPolicy") {
		l += " from Group Policy"
	}
	return l
}

// unblockFix is the manual remedy for block rules: a local one can be removed, a Group
// Policy one only changed in the GPO.
func unblockFix(verify string, rules []decode.FirewallRule, what string) *Fix {
	var cmds, notes []string
	for _, r := range rules {
		if strings.EqualFold(string(r.PolicyStoreSourceType), "GroupPolicy") {
			notes = append(notes, fmt.Sprintf("%q comes from Group Policy: change the GPO (gpresult /h gp.html names it); a local change is overwritten", string(r.Name)))
			continue
		}
		cmds = append(cmds, fmt.Sprintf("Get-NetFirewallRule -Name %s -PolicyStore ActiveStore | Format-List Name, DisplayName, Action, Profile, PolicyStoreSource   # who made it", psQuote(string(r.Name))),
			fmt.Sprintf("Remove-NetFirewallRule -Name %s   # or narrow it so it no longer covers %s", psQuote(string(r.Name)), what))
	}
	if len(cmds) == 0 {
		cmds = []string{"gpresult /h C:\\gp.html   # the GPO that sets the block rule"}
	}
	return &Fix{ID: "firewall-unblock", Title: "Remove or narrow the block rule covering " + what + " (allow rules cannot override it)",
		Kind: Manual, Verify: verify, Commands: cmds, Notes: notes}
}
