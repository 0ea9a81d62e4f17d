package decode

import (
	"strings"
	"testing"
)

// PS 5.1 prints one exclusion or one resource as a string, a missing registry value as
// null, and the file may start with a UTF-16 BOM's UTF-8 form.
func TestDecodeDefender(t *testing.T) {
	d, err := DecodeDefender("f", []byte("\ufeff"+`{"Defender":true,"DefenderError":"","AMServiceEnabled":true,"AMRunningMode":"Normal",`+
		`"RealTimeProtectionEnabled":true,"ExclusionPath":"C:\\ProgramData\\containerd","ExclusionProcess":[],`+
		`"Threats":{"ThreatID":"2147519003","ThreatName":"Virus:DOS/EICAR_Test_File","SeverityID":5,"IsActive":true,"DidThreatExecute":false,`+
		`"Resources":"file:_C:\\ProgramData\\containerd\\root\\x.com"},"VSmbDisableOplocks":1,"ZZValues":"zzTest=1","FDVDenyWriteAccess":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Answered() || !d.RealTime() || d.Passive() || len(d.ExclusionPath) != 1 || len(d.Threats) != 1 || !d.Threats[0].Active() {
		t.Errorf("decoded %+v", d)
	}
	if !d.OplocksDisabled() || d.DenyWrite() || len(d.ZZValues) != 1 {
		t.Errorf("registry: %+v", d)
	}
	if p := ResourcePath(d.Threats[0].Resources[0]); p != `C:\ProgramData\containerd\root\x.com` {
		t.Errorf("ResourcePath %q", p)
	}
	off, err := DecodeDefender("f", []byte(`{"Defender":false,"DefenderError":"the Defender module is not on this node (no Get-MpComputerStatus)","VSmbDisableOplocks":0,"FDVDenyWriteAccess":"0"}`))
	if err != nil || off.Answered() || off.OplocksDisabled() || off.DenyWrite() {
		t.Errorf("no Defender: %+v %v", off, err)
	}
	hidden, _ := DecodeDefender("f", []byte(`{"Defender":true,"ExclusionPath":"N/A: Must be an administrator to view exclusions","AMRunningMode":"Passive Mode"}`))
	if !hidden.ExclusionsHidden() || !hidden.Passive() {
		t.Errorf("hidden/passive: %+v", hidden)
	}
	for in, want := range map[string]string{
		`{"Defender":false}`:                              "not why",
		`{"Defender":true,"Threats":[{"IsActive":true}]}`: "neither ThreatName",
		`[{"Defender":true},{"Defender":true}]`:           "",
	} {
		_, err := DecodeDefender("f", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", in, err, want)
		}
	}
}

func FuzzDecodeDefender(f *testing.F) {
	f.Add([]byte(`{"Defender":true,"AMServiceEnabled":1,"Threats":{"ThreatName":"x","Resources":"file:_C:\\k\\kubelet.exe"},"ZZValues":"zz=1"}`))
	f.Add([]byte(`{"Defender":"False","DefenderError":"0x800106ba","VSmbDisableOplocks":"1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := DecodeDefender("f", b)
		if err != nil {
			return
		}
		_ = d.RealTime() || d.Passive() || d.ExclusionsHidden() || d.OplocksDisabled() || d.DenyWrite()
		for _, th := range d.Threats {
			for _, r := range th.Resources {
				_ = ResourcePath(r)
			}
		}
	})
}
