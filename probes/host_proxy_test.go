package probes

import (
	"strings"
	"testing"
)

func TestHostPrereq(t *testing.T) {
	host := func(build, feature string) map[string]string {
		b := `{"CurrentBuild":"` + build + `","UBR":100`
		if feature != "" {
			b += `,"ContainersFeature":` + feature
		}
		return map[string]string{"nodes/win-1/host.json": b + `}`}
	}
	for _, tc := range []struct {
		name, build, feature string
		status               Status
		want                 string
	}{
		{"enabled", "17763", "1", Pass, "the Containers feature is Enabled"},
		{"older host.json", "20348", "", Pass, "the Containers feature was not collected"},
		{"null from PS", "20348", "null", Pass, "not collected"},
		{"disabled", "20348", "2", Fail, "the Containers feature is Disabled"},
		{"absent", "17763", "3", Fail, "Absent (its payload is removed)"},
		{"not listed", "17763", "0", Fail, "not listed by the OS"},
		{"as a string", "17763", `"2"`, Fail, "Disabled"},
		{"ws2016", "14393", "1", Fail, "older than Windows Server 2019 (17763)"},
		{"ws2016 without the feature", "14393", "2", Fail, "the Containers feature is Disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := clOne(t, hostPrereq{}, "win-1", clEv(host(tc.build, tc.feature)), tc.status, tc.want)
			if (f.Fix != nil) != (tc.status == Fail) {
				t.Errorf("fix %+v", f.Fix)
			}
			if tc.build == "14393" && (f.Fix == nil || f.Fix.ID != "replace-host") {
				t.Errorf("an old build needs a new host, got %+v", f.Fix)
			}
		})
	}
	clOne(t, hostPrereq{}, "win-1", clEv(nil), Skip, "no evidence at nodes/win-1/host.json")
}

func TestHostProxy(t *testing.T) {
	const cfg = `{"serviceCIDR":"10.96.0.0/12","clusterCIDR":"10.244.0.0/16"}`
	ev := func(proxy string) map[string]string {
		return map[string]string{"nodes/win-1/proxy.json": proxy, "cluster/cluster-config.json": cfg}
	}
	const full = "localhost,10.0.0.0/24,10.96.0.0/12,10.244.0.0/16,.svc,.cluster.local"
	for _, tc := range []struct {
		name, proxy string
		status      Status
		want        string
		fix         FixKind
	}{
		{"nothing set", `{"Machine":{},"User":{},"Services":[{"Name":"containerd","Environment":[]}]}`, Pass, "no proxy is configured", ""},
		{"WinHTTP only, pulls fine", `{"Machine":{},"Services":[{"Name":"containerd","Environment":[]}],"WinHTTPProxy":"http=p:80;https=p:443"}`,
			Warn, "WinHTTP has the proxy http=p:80;https=p:443, which containerd ignores", NodeScript},
		{"WinHTTP and a user-level one", `{"Machine":{},"User":{"HTTP_PROXY":"http://p:80"},"Services":[{"Name":"containerd","Environment":[]}],"WinHTTPProxy":"p:80"}`,
			Fail, "WinHTTP proxy p:80 (Go programs ignore it)", NodeScript},
		{"docker has it, containerd not", `{"Machine":{},"Services":[{"Name":"docker","Environment":["HTTPS_PROXY=http://p:3128"]},{"Name":"containerd","Environment":[]}]}`,
			Fail, "but containerd does not get it", NodeScript},
		{"credentials redacted", `{"Machine":{},"User":{"HTTPS_PROXY":"http://***REDACTED***@p:3128"},"Services":[{"Name":"containerd","Environment":[]}]}`,
			Fail, "containerd does not get it", Manual},
		{"machine and complete", `{"Machine":{"HTTPS_PROXY":"http://p:3128","NO_PROXY":"` + full + `"},"Services":[{"Name":"containerd","Environment":[]}],"APIServer":"https://10.0.0.4:6443"}`,
			Pass, "NO_PROXY spares the 5 cluster address(es) checked", ""},
		{"API server proxied", `{"Machine":{"HTTPS_PROXY":"http://p:3128","NO_PROXY":"10.96.0.0/12,10.244.0.0/16,.svc,.cluster.local"},"Services":[],"APIServer":"https://api.corp:6443"}`,
			Fail, "the API server api.corp:6443", NodeScript},
		{"service's own NO_PROXY overrides", `{"Machine":{"HTTPS_PROXY":"http://p:3128","NO_PROXY":"` + full + `"},"Services":[{"Name":"containerd","Environment":["NO_PROXY=localhost"]}]}`,
			Fail, "containerd send the kubernetes Service 10.96.0.1", NodeScript},
		{"no runtime service", `{"Machine":{},"User":{"HTTP_PROXY":"http://p:1"},"Services":[]}`, Warn, "neither the machine-level variables nor a containerd or docker service", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := clOne(t, hostProxy{}, "win-1", clEv(ev(tc.proxy)), tc.status, tc.want)
			switch {
			case tc.fix == "" && f.Fix != nil:
				t.Errorf("unexpected fix %+v", f.Fix)
			case tc.fix != "" && (f.Fix == nil || f.Fix.Kind != tc.fix):
				t.Errorf("fix %+v, want kind %s", f.Fix, tc.fix)
			}
			if f.Fix != nil && f.Fix.Kind == NodeScript {
				np, _ := f.Fix.Params["NoProxy"].(string)
				for _, e := range []string{"10.96.0.0/12", ".svc", ".cluster.local"} {
					if !strings.Contains(np, e) {
						t.Errorf("the fix's NO_PROXY %q lacks %s", np, e)
					}
				}
			}
			if f.Fix != nil {
				for _, c := range f.Fix.Commands {
					if strings.Contains(c, "REDACTED") {
						t.Errorf("a redacted value reached a command: %s", c)
					}
				}
			}
		})
	}
	clOne(t, hostProxy{}, "win-1", clEv(nil), Skip, "no nodes/win-1/proxy.json")
}

// Pull timeouts without any proxy warn; with only WinHTTP's proxy they fail.
func TestHostProxyPullTimeouts(t *testing.T) {
	files := map[string]string{
		"nodes/win-1/proxy.json": `{"Machine":{},"Services":[{"Name":"containerd","Environment":[]}]}`,
		"nodes/win-1/kubelet.log": "E1201 09:41:12.345678    2904 remote_image.go:180] \"PullImage from image service failed\" err=\"rpc error: code = Unknown desc = " +
			"failed to pull and unpack image \\\"mcr.microsoft.com/windows/nanoserver:ltsc2022\\\": failed to do request: Head \\\"https://mcr.microsoft.com/v2/\\\": " +
			"proxyconnect tcp: dial tcp 10.1.1.1:3128: connectex: A connection attempt failed because the connected party did not properly respond\"\n" +
			"I1201 09:41:13.000000    2904 kubelet.go:2100] \"SyncLoop (PLEG): event for pod\"\n",
	}
	f := clOne(t, hostProxy{}, "win-1", clEv(files), Warn, "if this network needs a proxy, set the machine variables", "kubelet.log: E1201")
	if f.Fix == nil || f.Fix.Kind != Manual {
		t.Errorf("fix %+v", f.Fix)
	}
	files["nodes/win-1/proxy.json"] = `{"Machine":{},"Services":[{"Name":"containerd","Environment":[]}],"WinHTTPProxy":"proxy.corp:8080"}`
	f = clOne(t, hostProxy{}, "win-1", clEv(files), Fail, "image pulls fail on the network and containerd does not get the WinHTTP proxy proxy.corp:8080")
	if f.Fix == nil || f.Fix.Kind != NodeScript || f.Fix.Params["HttpsProxy"] != "http://proxy.corp:8080" {
		t.Errorf("fix %+v", f.Fix)
	}
}
