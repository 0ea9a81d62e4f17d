package decode

import "testing"

func TestDecodeProxy(t *testing.T) {
	// PS 5.1's shapes: a UTF-8 BOM, one service printed as an object rather than an
	// array, an Environment of one entry as a string, null for an empty scope.
	b := []byte("\xef\xbb\xbf" + `{
    "Machine":  {"HTTP_PROXY": "http://***REDACTED***@proxy.corp:3128", "NO_PROXY": "localhost,.svc"},
    "User":  null,
    "Services":  {"Name": "containerd", "Environment": "https_proxy=http://other:8080"},
    "WinHTTPProxy":  "proxy.corp:3128",
    "WinHTTPBypass":  "<local>",
    "APIServer":  "https://10.0.0.4:6443"
}`)
	p, err := DecodeProxy("proxy.json", b)
	if err != nil {
		t.Fatal(err)
	}
	m := p.MachineSettings()
	if m.HTTP != "http://***REDACTED***@proxy.corp:3128" || m.HTTPS != "" || m.NoProxy != "localhost,.svc" || !m.Set() {
		t.Errorf("machine %+v", m)
	}
	if p.UserSettings().Set() {
		t.Errorf("user %+v", p.UserSettings())
	}
	s, ok := p.Service("Containerd")
	if !ok {
		t.Fatal("containerd not found")
	}
	eff := s.Settings().Over(m)
	want := ProxySettings{HTTP: "http://***REDACTED***@proxy.corp:3128", HTTPS: "http://other:8080", NoProxy: "localhost,.svc"}
	if eff != want || eff.Proxy() != "http://other:8080" {
		t.Errorf("containerd sees %+v, want %+v", eff, want)
	}
	if _, ok := p.Service("docker"); ok {
		t.Error("docker found on a node without it")
	}
	if p.WinHTTPProxy != "proxy.corp:3128" || p.APIServer != "https://10.0.0.4:6443" {
		t.Errorf("%+v", p)
	}
}

// The first spelling listed wins, as GetEnvironmentVariable finds it in the process.
func TestProxyServiceFirstSpellingWins(t *testing.T) {
	s := ProxyService{Environment: Strings{"http_proxy=http://a:1", "HTTP_PROXY=http://b:2", "NO_PROXY", "NO_PROXY=x"}}
	if got := s.Settings(); got.HTTP != "http://a:1" || got.NoProxy != "x" {
		t.Errorf("%+v", got)
	}
}

func TestDecodeProxyBad(t *testing.T) {
	for _, b := range []string{``, `[]`, `{"Machine": "x"}`, `{"Services": 3}`} {
		if _, err := DecodeProxy("proxy.json", []byte(b)); err == nil {
			t.Errorf("%q decoded", b)
		}
	}
}

func FuzzDecodeProxy(f *testing.F) {
	f.Add([]byte(`{"Machine":{"HTTP_PROXY":"http://p:1"},"Services":[{"Name":"containerd","Environment":["NO_PROXY=a"]}]}`))
	f.Add([]byte(`{"Machine":{},"User":{},"Services":[],"WinHTTPProxy":"","APIServer":""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeProxy("f", b)
		if err != nil {
			return
		}
		for _, s := range p.Services {
			_ = s.Settings().Over(p.MachineSettings()).Proxy()
		}
	})
}
