package probes

import (
	"slices"
	"strings"
	"testing"
)

// Issue 14 round 3 (w14f): RUNTIME-CNI on Docker nodes, SVC-LB-POLICY on selector-less
// Services and on Services kube-proxy does not program.

// TestRuntimeCNIDocker: on a Docker node the folders are the kubelet's flags; old evidence
// that lacks them names the folders from processes.json and skips; a kubelet without
// --network-plugin=cni reads no CNI folder.
func TestRuntimeCNIDocker(t *testing.T) {
	const dirs, cni, procs = "nodes/win-1/cni-dirs.json", "nodes/win-1/cni-config.json", "nodes/win-1/processes.json"
	conf := `{"cniVersion":"0.2.0","name":"l2bridge","type":"wincni.exe"}`
	kubelet := `[{"Name":"kubelet.exe","ProcessId":3416,"CommandLine":"\"c:\\k\\kubelet.exe\" --network-plugin=cni --cni-bin-dir=\"c:\\k\\cni\" --cni-conf-dir \"c:\\k\\cni\\config\""}]`
	d := func(bins, plugin string) string {
		return `{"ConfDir":"c:\\k\\cni\\config","ConfDirFrom":"kubelet-flag","ConfFiles":"L2Bridge.conf","BinDir":"c:\\k\\cni","BinDirFrom":"kubelet-flag","BinFiles":` +
			bins + `,"NetworkPlugin":"` + plugin + `"}`
	}
	f := clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`"wincni.exe"`, "cni"), cni: conf, procs: kubelet}), Pass,
		"--cni-conf-dir holds L2Bridge.conf and --cni-bin-dir the plugins it names")
	if !slices.Contains(f.Evidence, procs) {
		t.Errorf("the kubelet's command line is not cited: %v", f.Evidence)
	}
	f = clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`[]`, "cni"), cni: conf, procs: kubelet}), Fail,
		`"wincni.exe" has no wincni.exe in --cni-bin-dir c:\k\cni`)
	if f.Fix == nil || f.Fix.ID != "align-kubelet-cni" || !contains(f.Fix.Commands[1], "copy wincni.exe") {
		t.Errorf("fix: %+v", f.Fix)
	}
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`[]`, ""), procs: kubelet}), Skip, `--network-plugin="", not cni`)
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`"wincni.exe"`, "cni"),
		"nodes/win-1/services.json": `[{"Name":"docker","State":"Stopped","StartMode":"Auto"}]`}), Skip, "docker is not running")
	// Evidence from before Docker nodes were listed: the folders from the command line.
	old := "exit 1\nno containerd config at C:\\Program Files\\containerd\\config.toml\n"
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs + ".err": old, procs: kubelet}), Skip,
		`the kubelet reads c:\k\cni\config and c:\k\cni (processes.json)`)
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs + ".err": old}), Skip, "not a containerd node")
}

// TestServiceLBsSelectorless: default/kubernetes has no selector; its load balancer is
// judged from its EndpointSlice (the API servers), and evidence without slices says it
// cannot judge it instead of passing it silently or warning.
func TestServiceLBsSelectorless(t *testing.T) {
	services := `{"kind":"List","apiVersion":"v1","items":[` +
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"kubernetes","namespace":"default"},"spec":{"clusterIP":"10.96.0.1","ports":[{"name":"https","port":443,"protocol":"TCP","targetPort":6443}]}},` +
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"kube-dns","namespace":"kube-system"},"spec":{"clusterIP":"10.96.0.10","selector":{"k8s-app":"kube-dns"},"ports":[{"port":53,"protocol":"UDP"},{"port":53,"protocol":"TCP"}]}}]}`
	// The slice as kube-apiserver's endpoint reconciler writes it, and kube-dns's.
	slices := `{"kind":"List","apiVersion":"v1","items":[` +
		`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"kubernetes","namespace":"default","labels":{"kubernetes.io/service-name":"kubernetes"}},"addressType":"IPv4",` +
		`"endpoints":[{"addresses":["10.0.10.5"],"conditions":{"ready":true}}],"ports":[{"name":"https","port":6443,"protocol":"TCP"}]},` +
		`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"kube-dns-x7k2p","namespace":"kube-system","labels":{"kubernetes.io/service-name":"kube-dns"}},"addressType":"IPv4",` +
		`"endpoints":[{"addresses":["10.244.0.5"],"conditions":{"ready":true}}],"ports":[{"name":"dns","port":53,"protocol":"UDP"}]}]}`
	elb := func(id, vip string, proto, port, target int, ref string) string {
		return `{"ID":"` + id + `","Policies":[{"Type":"ELB","VIPs":["` + vip + `"],"Protocol":` + itoa(proto) + `,"InternalPort":` + itoa(target) +
			`,"ExternalPort":` + itoa(port) + `,"SourceVIP":"10.244.2.2"}],"References":["/endpoints/` + strings.ToLower(ref) + `"]}`
	}
	dns := elb("U", "10.96.0.10", 17, 53, 53, "DNS1") + "," + elb("T", "10.96.0.10", 6, 53, 53, "DNS1")
	api := elb("K", "10.96.0.1", 6, 443, 6443, "API")
	ev := func(policies string, withSlices bool) map[string]string {
		m := map[string]string{
			"cluster/services.json":            services,
			"nodes/win-1/processes.json":       `[{"Name":"kube-proxy.exe","CommandLine":"kube-proxy.exe"}]`,
			"nodes/win-1/kube-proxy.log":       "",
			"nodes/win-1/hns-endpoints.json":   `[{"ID":"DNS1","IPAddress":"10.244.0.5","IsRemoteEndpoint":true},{"ID":"API","IPAddress":"10.0.10.5","IsRemoteEndpoint":true},{"ID":"VIP","IPAddress":"10.244.2.2"}]`,
			"nodes/win-1/hns-policylists.json": "[" + policies + "]",
		}
		if withSlices {
			m["cluster/endpointslices.json"] = slices
		}
		return m
	}
	clOne(t, serviceLBs{}, "win-1", clEv(ev(dns+","+api, true)), Pass, "3 ClusterIP port(s) of Services with endpoints")
	f := clOne(t, serviceLBs{}, "win-1", clEv(ev(dns, true)), Fail,
		"the kubernetes Service's ClusterIP has no load balancer for 10.96.0.1 TCP/443, though its EndpointSlice lists the API server(s) 10.0.10.5")
	if f.Fix == nil || f.Fix.ID != "restart-kube-proxy" {
		t.Errorf("fix %+v", f.Fix)
	}
	// Old evidence: no slices, so the selector-less Service is named as not judged, and
	// a node without its load balancer still passes (pods.json cannot tell).
	f = clOne(t, serviceLBs{}, "win-1", clEv(ev(dns, false)), Pass, "the DNS VIP 10.96.0.10 on UDP and TCP 53")
	if !strings.Contains(strings.Join(f.Details, "\n"), "not judged without cluster/endpointslices.json: default/kubernetes") {
		t.Errorf("no note of the unjudged Service: %q", f.Details)
	}
	// Slices collected, none for a selector-less Service: it has no endpoints, so no
	// load balancer is expected and nothing is said.
	noAPI := ev(dns, true)
	noAPI["cluster/endpointslices.json"] = strings.Replace(slices, `"name":"kubernetes","namespace":"default","labels":{"kubernetes.io/service-name":"kubernetes"}`,
		`"name":"other","namespace":"default","labels":{"kubernetes.io/service-name":"other"}`, 1)
	f = clOne(t, serviceLBs{}, "win-1", clEv(noAPI), Pass, "2 ClusterIP port(s)")
	if strings.Contains(strings.Join(f.Details, "\n"), "not judged") {
		t.Errorf("a Service without slices is reported unjudged although slices were collected: %q", f.Details)
	}
}

// TestServiceLBsNotProxied: Services kube-proxy does not program here are named, not failed.
func TestServiceLBsNotProxied(t *testing.T) {
	services := `{"kind":"List","apiVersion":"v1","items":[` +
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"kube-dns","namespace":"kube-system"},"spec":{"clusterIP":"10.96.0.10","selector":{"k8s-app":"kube-dns"},"ports":[{"port":53,"protocol":"UDP"},{"port":53,"protocol":"TCP"}]}},` +
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"mesh","namespace":"default","labels":{"service.kubernetes.io/service-proxy-name":"other"}},"spec":{"clusterIP":"10.96.2.2","selector":{"app":"mesh"},"ports":[{"port":80,"protocol":"TCP"}]}},` +
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"local","namespace":"default"},"spec":{"clusterIP":"10.96.3.3","internalTrafficPolicy":"Local","selector":{"app":"local"},"ports":[{"port":80,"protocol":"TCP"}]}}]}`
	slices := `{"kind":"List","apiVersion":"v1","items":[` +
		`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"mesh-a","namespace":"default","labels":{"kubernetes.io/service-name":"mesh"}},"addressType":"IPv4","endpoints":[{"addresses":["10.244.0.9"],"conditions":{"ready":true}}]},` +
		`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"local-a","namespace":"default","labels":{"kubernetes.io/service-name":"local"}},"addressType":"IPv4","endpoints":[{"addresses":["10.244.0.8"],"conditions":{"ready":true}}]}]}`
	pol := `[{"ID":"U","Policies":[{"Type":"ELB","VIPs":["10.96.0.10"],"Protocol":17,"InternalPort":53,"ExternalPort":53}],"References":[]},` +
		`{"ID":"T","Policies":[{"Type":"ELB","VIPs":["10.96.0.10"],"Protocol":6,"InternalPort":53,"ExternalPort":53}],"References":[]}]`
	f := clOne(t, serviceLBs{}, "win-1", clEv(map[string]string{
		"cluster/services.json": services, "cluster/endpointslices.json": slices,
		"nodes/win-1/processes.json": `[{"Name":"kube-proxy.exe","CommandLine":"kube-proxy.exe"}]`, "nodes/win-1/kube-proxy.log": "",
		"nodes/win-1/hns-endpoints.json": `[]`, "nodes/win-1/hns-policylists.json": pol,
	}), Pass, "the DNS VIP 10.96.0.10")
	got := strings.Join(f.Details, "\n")
	if !strings.Contains(got, "default/mesh (service-proxy-name other)") || !strings.Contains(got, "default/local (internalTrafficPolicy Local)") {
		t.Errorf("details %q", got)
	}
}
