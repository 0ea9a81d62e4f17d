package decode

import (
	"strings"
	"testing"
)

// PS 5.1 prints a one-item list property as a string and enums as their names only when
// the snippet casts them; both shapes must decode.
func TestDecodeCNIDirs(t *testing.T) {
	d, err := DecodeCNIDirs("f", []byte(`{"ConfDir":"C:\\etc\\cni\\net.d","ConfDirFrom":"config.toml","ConfFiles":"10-flannel.conf",`+
		`"BinDir":"C:\\opt\\cni\\bin","BinDirFrom":"config.toml","BinFiles":["Flannel.exe","host-local.exe"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.CNIConfigFiles(); len(got) != 1 || got[0] != "10-flannel.conf" {
		t.Errorf("config files: %v", got)
	}
	if !d.HasBinary("flannel") || d.HasBinary("win-overlay") {
		t.Errorf("HasBinary: flannel %v (want true), win-overlay %v (want false)", d.HasBinary("flannel"), d.HasBinary("win-overlay"))
	}
	if _, err := DecodeCNIDirs("f", []byte(`{"ConfDir":"x"}`)); err == nil || !strings.Contains(err.Error(), "BinDir") {
		t.Errorf("no BinDir: %v", err)
	}
}

func TestDecodeNetInterfaces(t *testing.T) {
	n, err := DecodeNetInterfaces("f", []byte(`{"IPInterfaces":[{"InterfaceAlias":"vEthernet (Ethernet)","ifIndex":7,"NlMtu":1500,"CompartmentId":1,"ConnectionState":"Connected"},`+
		`{"InterfaceAlias":"vEthernet (x)","ifIndex":40,"NlMtu":"1450","CompartmentId":2,"ConnectionState":1}],`+
		`"Adapters":{"Name":"Ethernet","MtuSize":1500,"Virtual":false,"Status":"Up"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(n.IPInterfaces) != 2 || n.IPInterfaces[1].NlMtu != 1450 || !n.IPInterfaces[1].Connected() {
		t.Errorf("interfaces: %+v", n.IPInterfaces)
	}
	if len(n.Adapters) != 1 || !n.Adapters[0].Physical() {
		t.Errorf("adapters: %+v", n.Adapters)
	}
	if _, err := DecodeNetInterfaces("f", []byte(`{}`)); err == nil {
		t.Error("an empty object decoded")
	}
}

func TestDecodeKubeProxyHealthAndResources(t *testing.T) {
	h, err := DecodeKubeProxyHealth("f", []byte(`{"BindAddress":"0.0.0.0:10256","From":"default","Url":"http://127.0.0.1:10256/healthz","ProcessId":3120,"StatusCode":0,"Content":"","Error":"Unable to connect to the remote server"}`))
	if err != nil || h.StatusCode != 0 || h.Error == "" {
		t.Errorf("healthz: %+v %v", h, err)
	}
	if _, err := DecodeKubeProxyHealth("f", []byte(`{"StatusCode":200}`)); err == nil {
		t.Error("no Url decoded")
	}
	r, err := DecodeResources("f", []byte(`{"DynamicPortStart":49152,"DynamicPortCount":16384,"ExcludedPorts":64,"TCPConnections":212,"DynamicPortsInUse":87,`+
		`"TopOwners":{"ProcessId":2904,"Name":"kubelet","Count":31},"CommittedBytes":7241908224,"CommitLimit":19327352832}`))
	if err != nil || len(r.TopOwners) != 1 || r.ExcludedPorts != 64 {
		t.Errorf("resources: %+v %v", r, err)
	}
	if _, err := DecodeResources("f", []byte(`{"DynamicPortCount":-1}`)); err == nil {
		t.Error("a negative count decoded")
	}
}

// A nil ready condition is ready (discovery.k8s.io/v1), a terminating endpoint is not,
// and slices of another Service or namespace do not count.
func TestEndpointsOf(t *testing.T) {
	sl, err := EndpointSlices("f", []byte(`{"apiVersion":"v1","kind":"List","items":[
 {"kind":"EndpointSlice","metadata":{"name":"a","namespace":"kube-system","labels":{"kubernetes.io/service-name":"kube-dns"}},
  "endpoints":[{"addresses":["10.0.0.1"]},{"addresses":["10.0.0.2"],"conditions":{"ready":false}},
   {"addresses":["10.0.0.3"],"conditions":{"ready":true,"terminating":true}}]},
 {"kind":"EndpointSlice","metadata":{"name":"b","namespace":"default","labels":{"kubernetes.io/service-name":"kube-dns"}},
  "endpoints":[{"addresses":["10.9.9.9"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := EndpointsOf(sl, "kube-system", "kube-dns")
	if got.Slices != 1 || strings.Join(got.Ready, ",") != "10.0.0.1" || strings.Join(got.NotReady, ",") != "10.0.0.2,10.0.0.3" {
		t.Errorf("EndpointsOf = %+v", got)
	}
	if e := EndpointsOf(sl, "kube-system", "other"); e.Slices != 0 {
		t.Errorf("another Service's slices counted: %+v", e)
	}
}

// TestDecodeCNIDirsDocker: the Docker shape (the kubelet's folders, its --network-plugin)
// and the containerd shape written before it (no NetworkPlugin) both decode.
func TestDecodeCNIDirsDocker(t *testing.T) {
	d, err := DecodeCNIDirs("f", []byte("\ufeff"+`{"ConfDir":"c:\\k\\cni\\config","ConfDirFrom":"kubelet-flag","ConfFiles":"cni.conf",`+
		`"BinDir":"c:\\k\\cni","BinDirFrom":"kubelet-flag","BinFiles":["host-local.exe","win-bridge.exe"],"NetworkPlugin":"cni"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !d.FromKubelet() || !d.UsesCNI() || !d.HasBinary("win-bridge") || len(d.CNIConfigFiles()) != 1 {
		t.Errorf("docker shape: %+v (from kubelet %v, uses CNI %v)", d, d.FromKubelet(), d.UsesCNI())
	}
	d, err = DecodeCNIDirs("f", []byte(`{"ConfDir":"C:\\etc\\cni\\net.d","ConfDirFrom":"kubelet-default","ConfFiles":[],`+
		`"BinDir":"C:\\opt\\cni\\bin","BinDirFrom":"kubelet-default","BinFiles":[],"NetworkPlugin":""}`))
	if err != nil {
		t.Fatal(err)
	}
	if !d.FromKubelet() || d.UsesCNI() {
		t.Errorf("kubelet without --network-plugin: from kubelet %v (want true), uses CNI %v (want false)", d.FromKubelet(), d.UsesCNI())
	}
	d, err = DecodeCNIDirs("f", []byte(`{"ConfDir":"C:\\etc\\cni\\net.d","ConfDirFrom":"config.toml","ConfFiles":[],"BinDir":"C:\\opt\\cni\\bin","BinDirFrom":"default","BinFiles":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.FromKubelet() || !d.UsesCNI() || d.NetworkPlugin != nil {
		t.Errorf("containerd shape: %+v", d)
	}
}
