package probes

import (
	"fmt"
	"testing"
)

// TestKubeProxyName: HOST-NAME judges the name kube-proxy runs as (FM-15): the override
// lower-cased, else the lower-cased DNS host name; from its process, its service, or its
// DaemonSet pod's args with $(NODE_NAME) expanded. No alarm when the names match.
func TestKubeProxyName(t *testing.T) {
	const node = "ip-10-0-45-67.us-west-2.compute.internal"
	host := `{"ComputerName":"EC2AMAZ-7Q3K1RD","DnsHostName":"EC2AMAZ-7Q3K1RD","Domain":"WORKGROUP","PartOfDomain":false,"CurrentBuild":"20348"}`
	kubelet := `{"Name":"kubelet.exe","ProcessId":4000,"CommandLine":"kubelet.exe --hostname-override=` + node + `"}`
	procs := func(proxy string) string {
		if proxy == "" {
			return "[" + kubelet + "]"
		}
		return fmt.Sprintf(`[%s,{"Name":"kube-proxy.exe","ProcessId":5230,"CommandLine":%q}]`, kubelet, proxy)
	}
	pod := func(args string) string {
		return `{"kind":"List","items":[{"metadata":{"namespace":"kube-system","name":"kube-proxy-windows-abcde","ownerReferences":[{"kind":"DaemonSet","name":"kube-proxy-windows"}]},` +
			`"spec":{"nodeName":"` + node + `","containers":[{"name":"kube-proxy","args":` + args + `,"env":[{"name":"NODE_NAME","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}}]}]},` +
			`"status":{"phase":"Running"}}]}`
	}
	for _, tc := range []struct {
		name   string
		files  map[string]string
		status Status
		want   []string
	}{
		{"override is the node", map[string]string{"nodes/n/processes.json": procs(`kube-proxy.exe --hostname-override=` + node)}, Pass,
			[]string{"kube-proxy runs as " + node + ", the node name (the running kube-proxy.exe (pid 5230))"}},
		{"no override", map[string]string{"nodes/n/processes.json": procs(`kube-proxy.exe --proxy-mode=kernelspace`)}, Fail,
			[]string{"kube-proxy runs as node ec2amaz-7q3k1rd, not " + node + ": no --hostname-override, so it uses the lower-cased host name ec2amaz-7q3k1rd"}},
		{"another override", map[string]string{"nodes/n/processes.json": procs(`kube-proxy.exe --hostname-override=EC2AMAZ-7Q3K1RD`)}, Fail,
			[]string{"kube-proxy runs as node ec2amaz-7q3k1rd", "--hostname-override=EC2AMAZ-7Q3K1RD"}},
		{"config file may set it", map[string]string{"nodes/n/processes.json": procs(`kube-proxy.exe --config=C:\k\kube-proxy.yaml`)}, Warn,
			[]string{`unless its --config file C:\k\kube-proxy.yaml sets hostnameOverride`}},
		{"pod args expand NODE_NAME", map[string]string{"nodes/n/processes.json": procs(""), "cluster/pods.json": pod(`["--hostname-override=$(NODE_NAME)"]`)}, Pass,
			[]string{"kube-proxy runs as " + node + ", the node name (container kube-proxy of pod kube-system/kube-proxy-windows-abcde"}},
		{"pod args without override", map[string]string{"nodes/n/processes.json": procs(""), "cluster/pods.json": pod(`["--v=2"]`)}, Fail,
			[]string{"container kube-proxy of pod kube-system/kube-proxy-windows-abcde"}},
		{"kube-proxy not in the evidence", map[string]string{"nodes/n/processes.json": procs("")}, Pass,
			[]string{"kube-proxy's command line is not in the evidence"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for p, b := range tc.files {
				files[replaceNode(p, node)] = b
			}
			files["nodes/"+node+"/host.json"] = host
			f := clOne(t, hostName{}, node, clEv(files), tc.status, tc.want...)
			if tc.status == Fail && (f.Fix == nil || f.Fix.ID != "kube-proxy-hostname-override") {
				t.Errorf("fix %+v", f.Fix)
			}
		})
	}
}

// TestKubeletName: a kubelet given another node's name is named, even where the
// ComputerName matches.
func TestKubeletName(t *testing.T) {
	ev := clEv(map[string]string{
		"nodes/win-1/host.json":      clHost("WIN-1", false),
		"nodes/win-1/processes.json": `[{"Name":"kubelet.exe","ProcessId":1,"CommandLine":"kubelet.exe --hostname-override=win-2"}]`,
	})
	clOne(t, hostName{}, "win-1", ev, Fail, "the kubelet runs with --hostname-override=win-2, not the node name win-1")
}

func TestWithFlag(t *testing.T) {
	for in, want := range map[string]string{
		"--v=2 --hostname-override=OLD --x=1": "--v=2 --hostname-override=n1 --x=1",
		"--v=2 --hostname-override OLD":       "--v=2 --hostname-override=n1",
		"--v=2":                               "--v=2 --hostname-override=n1",
	} {
		if got := withFlag(in, "hostname-override", "n1"); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func replaceNode(p, node string) string {
	if len(p) > 8 && p[:8] == "nodes/n/" {
		return "nodes/" + node + "/" + p[8:]
	}
	return p
}
