package decode

import (
	"strings"
)

// Proxy is proxy.json: the proxy settings of the node's machine and user environments,
// the container runtime services' own Environment entries, WinHTTP's proxy and the API
// server the kubelet's kubeconfig names. Userinfo in URLs arrives redacted on the node
// (RedactedUserinfo).
type Proxy struct {
	Machine       map[string]Str
	User          map[string]Str
	Services      List[ProxyService]
	WinHTTPProxy  Str
	WinHTTPBypass Str
	APIServer     Str
}

// ProxyService is one runtime service's registry Environment, its *_PROXY entries only.
type ProxyService struct {
	Name        Str
	Environment Strings
}

// ProxySettings are one environment's proxy variables, as Go's net/http reads them.
type ProxySettings struct {
	HTTP, HTTPS, NoProxy string
}

// RedactedUserinfo is what the snippet leaves of a URL's userinfo: the redactor's own
// marker (redact.Replacement), so a bundle does not count it again.
const RedactedUserinfo = "***REDACTED***@"

// DecodeProxy reads proxy.json.
func DecodeProxy(file string, b []byte) (Proxy, error) {
	return Object[Proxy](file, b)
}

// MachineSettings are the machine-level variables.
func (p Proxy) MachineSettings() ProxySettings { return settingsOf(p.Machine) }

// UserSettings are the collecting user's variables.
func (p Proxy) UserSettings() ProxySettings { return settingsOf(p.User) }

// Service finds a runtime service by name (case-insensitive); ok is false when the node
// has no such service.
func (p Proxy) Service(name string) (ProxyService, bool) {
	for _, s := range p.Services {
		if strings.EqualFold(string(s.Name), name) {
			return s, true
		}
	}
	return ProxyService{}, false
}

// Settings are the service's own entries. Windows compares variable names without case,
// so the first of HTTP_PROXY and http_proxy listed wins, as it does in the process.
func (s ProxyService) Settings() ProxySettings {
	m := map[string]Str{}
	for _, e := range s.Environment {
		name, value, ok := strings.Cut(e, "=")
		if !ok {
			continue
		}
		if _, seen := m[strings.ToUpper(name)]; !seen {
			m[strings.ToUpper(name)] = Str(value)
		}
	}
	return settingsOf(m)
}

// Over is s with each unset variable taken from base: what a service whose own
// Environment holds s sees on a machine whose variables are base.
func (s ProxySettings) Over(base ProxySettings) ProxySettings {
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	return ProxySettings{HTTP: pick(s.HTTP, base.HTTP), HTTPS: pick(s.HTTPS, base.HTTPS), NoProxy: pick(s.NoProxy, base.NoProxy)}
}

// Set reports whether a proxy is configured (HTTP_PROXY or HTTPS_PROXY).
func (s ProxySettings) Set() bool { return s.HTTP != "" || s.HTTPS != "" }

// Proxy is the proxy URL, HTTPS_PROXY first (registries are reached over HTTPS).
func (s ProxySettings) Proxy() string {
	if s.HTTPS != "" {
		return s.HTTPS
	}
	return s.HTTP
}

func settingsOf(m map[string]Str) ProxySettings {
	// Upper case first, then lower: one variable on Windows, so a file holding both
	// spellings holds one value twice unless it was assembled by hand.
	get := func(name string) string {
		for _, k := range []string{name, strings.ToLower(name)} {
			if v := strings.TrimSpace(string(m[k])); v != "" {
				return v
			}
		}
		return ""
	}
	return ProxySettings{HTTP: get("HTTP_PROXY"), HTTPS: get("HTTPS_PROXY"), NoProxy: get("NO_PROXY")}
}
