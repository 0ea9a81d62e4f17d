package probes

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// The configuration a Linux worker of a hand-built cluster gets from
// kubernetes-the-hard-way docs/09-bootstrapping-kubernetes-workers.md, each value typed
// in by hand per node: the bridge CNI config's subnet (POD_CIDR), the kubelet's
// clusterDNS, kube-proxy's clusterCIDR. A typo in any of them breaks the paths between
// this node's pods and the Windows nodes' pods without any component failing.

// linuxFlags are the flags of the running program named name (kubelet, kube-proxy).
func linuxFlags(c C, name string) (map[string]string, bool) {
	ps, ok := optional(c, evidence.LinuxCmdlines)
	if !ok {
		return nil, false
	}
	for _, p := range ps {
		if p.Name() == name {
			return decode.Flags(p.Args[1:]), true
		}
	}
	return nil, false
}

// configFile is the file a program's --config names, else where it is by default.
func configFile(flags map[string]string, def string) string {
	if f := flags["config"]; f != "" {
		return f
	}
	return def
}

// linuxCNISubnet (LINUX-CNI-SUBNET): the CNI config the runtime loads (libcni takes the
// first file by name) hands out addresses from the node's spec.podCIDR, the range every
// other node routes to this node.
type linuxCNISubnet struct{}

func (linuxCNISubnet) Spec() Spec {
	return Spec{ID: "LINUX-CNI-SUBNET", OS: evidence.Linux, Title: "the Linux worker's CNI subnet is its podCIDR", FM: []string{"FM-01"},
		Reads: []evidence.Ref{evidence.LinuxCNI, evidence.LinuxFlannelSubnet, evidence.ClusterNodes}}
}

func (linuxCNISubnet) Check(c C) Finding {
	_, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	files, cniPath, bad := need(c, evidence.LinuxCNI)
	if bad != nil {
		return *bad
	}
	cites := []string{cniPath, evidence.PathNodes}
	var conf *decode.CNIFile
	for i := range files {
		if files[i].Config() && (conf == nil || files[i].Path < conf.Path) {
			conf = &files[i]
		}
	}
	if conf == nil {
		return c.Fail("no CNI network config in /etc/cni/net.d: pods cannot get an address", cites...)
	}
	want, ok := prefix(self.Spec.PodCIDR)
	if !ok {
		return c.Skip("the node has no podCIDR to compare the CNI subnet with (NODE-PODCIDR's subject on Windows nodes)", cites...)
	}
	var subnets []string
	switch {
	case slices.Contains(conf.Types, "calico"):
		return c.Skip(conf.Path+": Calico hands out IPAM blocks, not the node's podCIDR", cites...)
	case slices.Contains(conf.Types, "flannel"):
		env, ok := optional(c, evidence.LinuxFlannelSubnet)
		if !ok {
			return c.Skip(conf.Path+" delegates to flannel, and flannel's subnet.env was not collected (is flanneld running?)", cites...).
				Citing(c.Path(evidence.LinuxFlannelSubnet))
		}
		subnets, cites = []string{env.Subnet}, append(cites, c.Path(evidence.LinuxFlannelSubnet))
	default:
		subnets = conf.Subnets
	}
	if len(subnets) == 0 {
		return c.Skip(conf.Path+" names no host-local subnet to compare", cites...)
	}
	for _, s := range subnets {
		if got, ok := prefix(s); ok && got == want {
			return c.Pass(fmt.Sprintf("%s hands out %s, the node's podCIDR", conf.Path, want), cites...)
		}
	}
	return c.Fail(fmt.Sprintf("%s hands out %s, but the node's podCIDR is %s", conf.Path, strings.Join(subnets, ", "), want), cites...).
		With("every other node routes " + want.String() + " here; pods given other addresses are unreachable from them (and may collide with another node's pods)").
		WithFix(&Fix{ID: "cni-subnet", Title: "Set the CNI subnet to the node's podCIDR", Kind: Manual, Verify: c.id,
			Commands: []string{
				fmt.Sprintf("sed -i 's|%s|%s|' %s", subnets[0], want, conf.Path),
				"systemctl restart containerd",
				"kubectl delete pod --field-selector spec.nodeName=" + c.node + " -A   # pods keep the addresses they were given",
			},
			Notes: []string{"kubernetes-the-hard-way docs/09 writes the subnet from the node's POD_CIDR into 10-bridge.conf"}})
}

// linuxKubeletDNS (LINUX-KUBELET-DNS): the kubelet's clusterDNS is the kube-dns Service
// IP, which it writes into every pod's resolv.conf.
type linuxKubeletDNS struct{}

func (linuxKubeletDNS) Spec() Spec {
	return Spec{ID: "LINUX-KUBELET-DNS", OS: evidence.Linux, Title: "the Linux kubelet's clusterDNS is kube-dns", FM: []string{"FM-05"},
		Reads: []evidence.Ref{evidence.LinuxKubeletConfig, evidence.LinuxCmdlines, evidence.ClusterConfig, evidence.ClusterServices, evidence.ClusterNodes}}
}

func (linuxKubeletDNS) Check(c C) Finding {
	plan := c.addressPlan()
	if plan.kubeDNS == "" {
		return c.Skip("the cluster's DNS Service IP is unknown (no kube-dns Service, no cluster-config.json)", plan.cites...)
	}
	var dns []string
	var from string
	flags, _ := linuxFlags(c, "kubelet")
	if flags["cluster-dns"] != "" {
		dns, from = strings.Split(flags["cluster-dns"], ","), c.Path(evidence.LinuxCmdlines)+" (--cluster-dns)"
	} else {
		cfg, p, bad := need(c, evidence.LinuxKubeletConfig)
		if bad != nil {
			return *bad
		}
		dns, from = cfg.ClusterDNS, p
	}
	path, _, _ := strings.Cut(from, " ")
	cites := append([]string{path}, plan.cites...)
	switch {
	case slices.Contains(dns, plan.kubeDNS):
		return c.Pass(fmt.Sprintf("clusterDNS %s is kube-dns", plan.kubeDNS), cites...)
	case len(dns) == 0:
		return c.Fail("the kubelet has no clusterDNS: pods get the node's own resolv.conf and cannot resolve Services", cites...).
			With("kube-dns is " + plan.kubeDNS + " (" + plan.dnsSource + ")").WithFix(kubeletDNSFix(c.id, plan.kubeDNS, configFile(flags, "/var/lib/kubelet/config.yaml")))
	}
	return c.Fail(fmt.Sprintf("clusterDNS %s, but kube-dns is %s", strings.Join(dns, ","), plan.kubeDNS), cites...).
		With("set in "+from, "kube-dns: "+plan.kubeDNS+" ("+plan.dnsSource+")",
			"pods on this node send DNS queries to an address nothing answers: names of Services, Windows ones included, do not resolve").
		WithFix(kubeletDNSFix(c.id, plan.kubeDNS, configFile(flags, "/var/lib/kubelet/config.yaml")))
}

func kubeletDNSFix(verify, ip, file string) *Fix {
	return &Fix{ID: "kubelet-cluster-dns", Title: "Point the kubelet's clusterDNS at kube-dns, then recreate the node's pods", Kind: Manual, Verify: verify,
		Commands: []string{
			"edit " + file + ": clusterDNS: [\"" + ip + "\"]",
			"systemctl restart kubelet",
			"delete the node's pods: their resolv.conf was written when they started",
		}}
}

// linuxKubeProxyCIDR (LINUX-KPROXY-CIDR): kube-proxy's clusterCIDR is the cluster's pod
// range; iptables mode masquerades Service traffic from outside it, so a wrong range
// rewrites the source of pod traffic (or leaves outside traffic unmasqueraded, its
// replies going astray).
type linuxKubeProxyCIDR struct{}

func (linuxKubeProxyCIDR) Spec() Spec {
	return Spec{ID: "LINUX-KPROXY-CIDR", OS: evidence.Linux, Title: "the Linux kube-proxy's clusterCIDR is the cluster CIDR", FM: []string{"FM-05"},
		Reads: []evidence.Ref{evidence.LinuxKubeProxyConfig, evidence.LinuxCmdlines, evidence.ClusterConfig, evidence.ClusterServices, evidence.ClusterNodes}}
}

func (linuxKubeProxyCIDR) Check(c C) Finding {
	plan := c.addressPlan()
	if !plan.cluster.known() {
		return c.Skip("the cluster CIDR is unknown (no cluster-config.json, no node podCIDRs)", plan.cites...)
	}
	flags, running := linuxFlags(c, "kube-proxy")
	var got, from string
	switch {
	case flags["cluster-cidr"] != "":
		got, from = flags["cluster-cidr"], c.Path(evidence.LinuxCmdlines)
	default:
		cfg, err := evidence.Get(c.ev, c.node, evidence.LinuxKubeProxyConfig)
		var miss *evidence.MissingError
		if errors.As(err, &miss) {
			what := "kube-proxy does not run on this node"
			if running {
				what = "kube-proxy's config file is not on the host"
			}
			return c.Skip(what+" (a kube-proxy DaemonSet reads the kube-proxy ConfigMap: kubeadm)",
				c.Path(evidence.LinuxKubeProxyConfig), c.Path(evidence.LinuxCmdlines))
		}
		if err != nil {
			return c.problem(c.Path(evidence.LinuxKubeProxyConfig), err)
		}
		got, from = cfg.ClusterCIDR, c.Path(evidence.LinuxKubeProxyConfig)
	}
	cites := append([]string{from}, plan.cites...)
	want := plan.cluster
	if got == "" {
		return c.Warn("kube-proxy has no clusterCIDR: it cannot tell pod traffic from outside traffic to Services", cites...).
			With("the cluster CIDR is " + want.describe())
	}
	have, ok := prefix(strings.Split(got, ",")[0])
	switch {
	case !ok:
		return c.Fail(fmt.Sprintf("kube-proxy's clusterCIDR %q is not a CIDR", got), cites...)
	case have == want.prefix, want.inferred && have.Contains(want.prefix.Addr()) && have.Bits() <= want.prefix.Bits():
		f := c.Pass(fmt.Sprintf("clusterCIDR %s is the cluster CIDR", have), cites...)
		if want.inferred {
			f = f.With("the cluster CIDR is inferred from the nodes' podCIDRs (" + want.describe() + "); it covers them all")
		}
		return f
	}
	return c.Fail(fmt.Sprintf("kube-proxy's clusterCIDR %s, but the cluster CIDR is %s", have, want.prefix), cites...).
		With("cluster CIDR: "+want.describe(),
			"traffic from pods to Services is masqueraded as if it came from outside (or outside traffic is not), so replies from pods on other nodes, Windows ones included, take the wrong path").
		WithFix(&Fix{ID: "kube-proxy-cluster-cidr", Title: "Set kube-proxy's clusterCIDR to the cluster CIDR", Kind: Manual, Verify: c.id,
			Commands: []string{
				fmt.Sprintf("edit %s: clusterCIDR: \"%s\"", configFile(flags, "/var/lib/kube-proxy/kube-proxy-config.yaml"), want.prefix),
				"systemctl restart kube-proxy",
			}})
}
