package decode

import "testing"

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
