package decode

import (
	"encoding/json"
	"strings"
)

// CNIConfig is what the probes need from a Windows CNI config (win-bridge, win-overlay,
// flannel delegating to either, sdnbridge/sdnoverlay conflists, or the old wincni.exe).
type CNIConfig struct {
	Name          string   // network name: "cbr0", "l2bridge", "vxlan0"
	Type          string   // plugin type of the top-level config or first plugin
	Delegate      string   // flannel's delegate type, if any
	Nameservers   []string // dns.Nameservers
	ExceptionList []string // OutBoundNAT exceptions
	RoutePrefixes []string // ROUTE / SDNRoute destination prefixes
	Subnet        string   // ipam.subnet, when set
	Mode          string   // the plugin's mode (Calico: "vxlan" or "windows-bgp"), when set
}

// DecodeCNIConfig reads cni-config.json: the file as it is on the node.
func DecodeCNIConfig(file string, b []byte) (CNIConfig, error) {
	t, err := Text(file, b)
	if err != nil {
		return CNIConfig{}, err
	}
	var root map[string]any
	if err := json.Unmarshal(t, &root); err != nil {
		return CNIConfig{}, fail(file, err, "not a JSON CNI config: %v", describeJSONErr(err))
	}
	var c CNIConfig
	c.Name = str(get(root, "name"))
	c.Type = str(get(root, "type"))
	c.Mode = str(get(root, "mode"))
	if plugins, ok := get(root, "plugins").([]any); ok && len(plugins) > 0 {
		if p, ok := plugins[0].(map[string]any); ok && c.Type == "" {
			c.Type = str(get(p, "type"))
			c.Mode = str(get(p, "mode"))
		}
	}
	if d, ok := get(root, "delegate").(map[string]any); ok {
		c.Delegate = str(get(d, "type"))
	}
	if c.Name == "" {
		return c, fail(file, nil, "CNI config has no \"name\"")
	}
	walk(root, func(key string, v any) {
		switch strings.ToLower(key) {
		case "nameservers":
			c.Nameservers = appendStrs(c.Nameservers, v)
		case "exceptionlist", "exceptions":
			c.ExceptionList = appendStrs(c.ExceptionList, v)
		case "destinationprefix":
			c.RoutePrefixes = appendStrs(c.RoutePrefixes, v)
		case "subnet":
			if s := str(v); s != "" && c.Subnet == "" {
				c.Subnet = s
			}
		}
	})
	return c, nil
}

// get reads a key case-insensitively: Windows CNI configs mix "Policies" and "policies".
func get(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func walk(v any, visit func(key string, v any)) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			visit(k, c)
			walk(c, visit)
		}
	case []any:
		for _, c := range t {
			walk(c, visit)
		}
	}
}

func appendStrs(dst []string, v any) []string {
	switch t := v.(type) {
	case string:
		if t != "" {
			dst = append(dst, t)
		}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && s != "" {
				dst = append(dst, s)
			}
		}
	}
	return dst
}
