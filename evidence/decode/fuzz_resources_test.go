package decode

import "testing"

func FuzzResourceDecoders(f *testing.F) {
	f.Add([]byte(`{"ConfDir":"a","BinDir":"b","ConfFiles":"x.conf","BinFiles":["y.exe"]}`))
	f.Add([]byte(`{"IPInterfaces":[{"NlMtu":1450,"CompartmentId":2}],"Adapters":[{"MtuSize":1500,"Virtual":"False"}]}`))
	f.Add([]byte(`{"Url":"http://127.0.0.1:10256/healthz","StatusCode":503}`))
	f.Add([]byte(`{"ConfDir":"c:\\k\\cni\\config","ConfDirFrom":"kubelet-flag","ConfFiles":"cni.conf","BinDir":"c:\\k\\cni","BinDirFrom":"kubelet-flag","BinFiles":[],"NetworkPlugin":"cni"}`))
	f.Add([]byte(`{"DynamicPortCount":16384,"TopOwners":[{"ProcessId":1,"Count":2}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeCNIDirs("f", b)
		_, _ = DecodeNetInterfaces("f", b)
		_, _ = DecodeKubeProxyHealth("f", b)
		_, _ = DecodeResources("f", b)
	})
}
