package decode

import (
	"strings"
	"testing"
)

// PS 5.1 prints a one-item SharedWith as a string and an empty one as []; the counts may
// come as strings from a hand-edited file.
func TestDecodeHNSHealth(t *testing.T) {
	h, err := DecodeHNSHealth("f", []byte("\ufeff"+`{"State":"Running","ProcessId":2460,"Threads":"38","Handles":1210,"WorkingSetMB":21,"SharedCount":1,"SharedWith":"nsi"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !h.Running() || h.Threads != 38 || len(h.SharedWith) != 1 || h.SharedWith[0] != "nsi" {
		t.Errorf("decoded %+v", h)
	}
	stopped, err := DecodeHNSHealth("f", []byte(`{"State":"Stopped","ProcessId":0,"Threads":0,"Handles":0,"WorkingSetMB":0,"SharedCount":0,"SharedWith":[]}`))
	if err != nil || stopped.Running() {
		t.Errorf("stopped: %+v %v", stopped, err)
	}
	// SharedCount below the names listed is raised to them.
	if h, _ := DecodeHNSHealth("f", []byte(`{"State":"Running","ProcessId":9,"Threads":3,"SharedWith":["a","b"]}`)); h.SharedCount != 2 {
		t.Errorf("SharedCount %d, want 2", h.SharedCount)
	}
	for in, want := range map[string]string{
		`{"ProcessId":1,"Threads":2}`:                   "no State",
		`{"State":"Running","ProcessId":1,"Threads":0}`: "no threads",
		`{"State":"Running","Threads":-4}`:              "negative",
		`[{"State":"Running"},{"State":"Running"}]`:     "",
	} {
		_, err := DecodeHNSHealth("f", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", in, err, want)
		}
	}
}

func TestDecodeVFPPorts(t *testing.T) {
	v, err := DecodeVFPPorts("f", []byte(`{"Vfpctrl":"C:\\Windows\\system32\\vfpctrl.exe","LocalEndpoints":3,"Ports":[`+
		`{"EndpointId":"9A1C0D4E-2B7F-4C3A-8E55-0F1D2C3B4A59","IPAddress":"10.244.1.5","Port":"4FD72AB0-2C35-4AE7-AC9A-F893495BD5EF","Blocked":false,"Error":""},`+
		`{"EndpointId":"1","IPAddress":"10.244.1.6","Port":"{B5F4E943-756D-4EE8-A70C-DF5AD7C74715}","Blocked":true,"Error":""},`+
		`{"EndpointId":"2","IPAddress":"10.244.1.7","Port":"","Blocked":null,"Error":"no Endpoint Port allocator"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Ports) != 3 || v.Ports[0].IsBlocked() || !v.Ports[0].Known() || !v.Ports[1].IsBlocked() || v.Ports[2].Known() {
		t.Errorf("decoded %+v", v.Ports)
	}
	// One port alone is printed by PS 5.1 as an object when the snippet loses its @().
	one, err := DecodeVFPPorts("f", []byte(`{"LocalEndpoints":1,"Ports":{"IPAddress":"10.244.1.5","Port":"4FD72AB0-2C35-4AE7-AC9A-F893495BD5EF","Blocked":"True"}}`))
	if err != nil || len(one.Ports) != 1 || !one.Ports[0].IsBlocked() {
		t.Errorf("one port: %+v %v", one, err)
	}
	for in, want := range map[string]string{
		`{"LocalEndpoints":0,"Ports":[{"Port":""}]}`:                       "1 port(s) for 0",
		`{"LocalEndpoints":1,"Ports":[{"Port":"Container NIC 6c50381c"}]}`: "not a GUID",
		`{"LocalEndpoints":1,"Ports":[{"Blocked":"maybe"}]}`:               "not true/false",
	} {
		_, err := DecodeVFPPorts("f", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", in, err, want)
		}
	}
}

func FuzzHNSHealthDecoders(f *testing.F) {
	f.Add([]byte(`{"State":"Running","ProcessId":2460,"Threads":38,"SharedWith":"nsi"}`))
	f.Add([]byte(`{"LocalEndpoints":1,"Ports":{"Port":"4FD72AB0-2C35-4AE7-AC9A-F893495BD5EF","Blocked":true}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := DecodeHNSHealth("f", b); err == nil && (h.Threads < 0 || int(h.SharedCount) < len(h.SharedWith)) {
			t.Errorf("accepted %+v", h)
		}
		if v, err := DecodeVFPPorts("f", b); err == nil && int(v.LocalEndpoints) < len(v.Ports) {
			t.Errorf("accepted %+v", v)
		}
	})
}
