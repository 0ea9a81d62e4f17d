package probes

import (
	"strings"
	"testing"
)

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
