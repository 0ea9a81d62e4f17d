package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// linuxSwap (LINUX-SWAP): swap off, as kubernetes-the-hard-way docs/09 requires ("By
// default the kubelet will fail to start if swap is enabled": failSwapOn defaults to
// true), unless swap is deliberately allowed: failSwapOn false and NodeSwap's
// memorySwap.swapBehavior set (the tutorial's 2025 kubelet-config.yaml: failSwapOn:
// false, swapBehavior: NoSwap).
type linuxSwap struct{}

func (linuxSwap) Spec() Spec {
	return Spec{ID: "LINUX-SWAP", OS: evidence.Linux, Title: "swap is off, or deliberately allowed to the kubelet", FM: []string{"FM-08"},
		Reads: []evidence.Ref{evidence.LinuxSwaps, evidence.LinuxKubeletConfig, evidence.LinuxCmdlines}}
}

func (linuxSwap) Check(c C) Finding {
	swaps, p, bad := need(c, evidence.LinuxSwaps)
	if bad != nil {
		return *bad
	}
	if len(swaps) == 0 {
		return c.Pass("swap is off", p)
	}
	var areas []string
	for _, s := range swaps {
		areas = append(areas, fmt.Sprintf("%s (%s, %d KiB)", s.Filename, s.Type, s.SizeKiB))
	}
	on := "swap is on: " + strings.Join(areas, ", ")
	cfg, ok := optional(c, evidence.LinuxKubeletConfig)
	cites := []string{p}
	if ok {
		cites = append(cites, c.Path(evidence.LinuxKubeletConfig))
	}
	// The deprecated --fail-swap-on flag still overrides the config file.
	if flags, running := linuxFlags(c, "kubelet"); running && flags["fail-swap-on"] != "" {
		v := flags["fail-swap-on"] != "false"
		cfg.FailSwapOn, ok = &v, true
		cites = append(cites, c.Path(evidence.LinuxCmdlines))
	}
	switch {
	case ok && cfg.FailSwapOn != nil && !*cfg.FailSwapOn && cfg.MemorySwap.SwapBehavior != "":
		return c.Pass(fmt.Sprintf("%s, allowed on purpose: failSwapOn false, memorySwap.swapBehavior %s", on, cfg.MemorySwap.SwapBehavior), cites...)
	case ok && cfg.FailSwapOn != nil && !*cfg.FailSwapOn:
		return c.Warn(on+", tolerated (failSwapOn: false) but NodeSwap is not configured (no memorySwap.swapBehavior)", cites...).
			With("set memorySwap.swapBehavior (NoSwap or LimitedSwap) to say how pods may use it, or turn swap off")
	}
	return c.Fail(on+", and the kubelet refuses to run with swap on (failSwapOn defaults to true)", cites...).
		With("kubelet exits at start: \"running with swap on is not supported, please disable swap\"").
		WithFix(&Fix{ID: "swap-off", Title: "Turn swap off, now and at boot", Kind: Manual, Verify: c.id,
			Commands: []string{"swapoff -a", "comment out the swap lines of /etc/fstab (and mask swap.target / the .swap units on systemd)", "systemctl restart kubelet"},
			Notes:    []string{"kubernetes-the-hard-way docs/09: swapon --show, swapoff -a"}})
}

// linuxIPForward (LINUX-IPFORWARD): the node forwards packets between its pods' bridge
// and the network (microsoft/SDN Kubernetes/linux/generate-routes.sh: sysctl -w
// net.ipv4.ip_forward=1). The bridge plugin with isGateway turns it on when it sets up a
// pod, but a sysctl.d file or a hardened image turning it back off cuts every pod off
// from other nodes. bridge-nf-call-iptables (kubernetes-the-hard-way docs/09, br_netfilter)
// lets kube-proxy's rules see bridged traffic.
type linuxIPForward struct{}

func (linuxIPForward) Spec() Spec {
	return Spec{ID: "LINUX-IPFORWARD", OS: evidence.Linux, Title: "the Linux worker forwards IPv4 and filters bridged traffic", FM: []string{"FM-07"},
		Reads: []evidence.Ref{evidence.LinuxSysctl}}
}

func (linuxIPForward) Check(c C) Finding {
	sc, p, bad := need(c, evidence.LinuxSysctl)
	if bad != nil {
		return *bad
	}
	fwd, ok := sc["net.ipv4.ip_forward"]
	switch {
	case !ok:
		return c.Judge(Error, "net.ipv4.ip_forward is not in the sysctl output", p)
	case fwd != "1":
		return c.Fail("net.ipv4.ip_forward = "+fwd+": the node drops packets between its pods and other nodes", p).
			With("pods here cannot reach pods on other nodes, Windows ones included, nor they these").
			WithFix(&Fix{ID: "ip-forward", Title: "Turn IPv4 forwarding on, now and at boot", Kind: Manual, Verify: c.id,
				Commands: []string{"sysctl -w net.ipv4.ip_forward=1", "echo net.ipv4.ip_forward=1 > /etc/sysctl.d/99-kubernetes.conf"},
				Notes:    []string{"look for the file that turned it off: grep -r ip_forward /etc/sysctl.conf /etc/sysctl.d /usr/lib/sysctl.d"}})
	}
	if nf, ok := sc["net.bridge.bridge-nf-call-iptables"]; !ok || nf != "1" {
		why := "is " + nf
		if !ok {
			why = "is missing (br_netfilter not loaded)"
		}
		return c.Warn("IPv4 forwarding is on, but net.bridge.bridge-nf-call-iptables "+why, p).
			With("kube-proxy's iptables rules do not see traffic between pods on the bridge: Service traffic between pods of this node may fail",
				"kubernetes-the-hard-way docs/09: modprobe br-netfilter; net.bridge.bridge-nf-call-iptables = 1")
	}
	return c.Pass("IPv4 forwarding is on, bridged traffic goes through iptables", p)
}

// linuxServices (LINUX-SERVICES): containerd and the kubelet (and kube-proxy where it is
// a unit, as in kubernetes-the-hard-way) are active and enabled: docs/09 ends with
// `systemctl enable containerd kubelet kube-proxy` and `systemctl start ...`.
type linuxServices struct{}

func (linuxServices) Spec() Spec {
	return Spec{ID: "LINUX-SERVICES", OS: evidence.Linux, Title: "containerd, kubelet (and kube-proxy) run and start at boot", FM: []string{"FM-08"},
		Reads: []evidence.Ref{evidence.LinuxSystemd}}
}

func (linuxServices) Check(c C) Finding {
	units, p, bad := need(c, evidence.LinuxSystemd)
	if bad != nil {
		return *bad
	}
	var problems, cmds []string
	var down, checked []string
	for _, name := range []string{"containerd", "kubelet", "kube-proxy"} {
		u, found := decode.FindUnit(units, name)
		if name == "kube-proxy" && (!found || !u.Exists()) {
			continue // a DaemonSet runs it (kubeadm), or nothing does
		}
		checked = append(checked, name)
		switch {
		case !found || !u.Exists():
			problems = append(problems, name+": no unit file")
			down = append(down, name)
			continue
		case !u.Running():
			problems = append(problems, fmt.Sprintf("%s: %s (%s)", name, u.ActiveState, u.SubState))
			down = append(down, name)
			cmds = append(cmds, "systemctl start "+name)
		}
		if !u.Enabled() {
			problems = append(problems, fmt.Sprintf("%s: %s, does not start at boot", name, u.UnitFileState))
			cmds = append(cmds, "systemctl enable "+name)
		}
	}
	if len(problems) == 0 {
		return c.Pass(strings.Join(checked, ", ")+": active and enabled", p)
	}
	summary := strings.Join(down, ", ") + " not running"
	if len(down) == 0 {
		return c.Warn("services run but will not start after a reboot", p).With(problems...).
			WithFix(&Fix{ID: "linux-enable", Title: "Enable the services at boot", Kind: Manual, Verify: c.id, Commands: cmds})
	}
	return c.Fail(summary, p).With(problems...).
		With("see why: journalctl -u " + down[0] + " -n 50").
		WithFix(&Fix{ID: "linux-start", Title: "Start (and enable) the services", Kind: Manual, Verify: c.id, Commands: cmds})
}
