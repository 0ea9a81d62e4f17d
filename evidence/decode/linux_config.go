package decode

import (
	"github.com/BurntSushi/toml"
	"sigs.k8s.io/yaml"
)

// LinuxKubeletConfig holds the KubeletConfiguration fields the Linux probes read.
type LinuxKubeletConfig struct {
	Kind          string   `json:"kind"`
	ClusterDNS    []string `json:"clusterDNS"`
	ClusterDomain string   `json:"clusterDomain"`
	PodCIDR       string   `json:"podCIDR"`
	// FailSwapOn is nil when unset: the kubelet's default is true (refuse to start with
	// swap on).
	FailSwapOn *bool `json:"failSwapOn"`
	MemorySwap struct {
		// SwapBehavior: NoSwap (the default since 1.30) or LimitedSwap; the older
		// UnlimitedSwap was removed in 1.30.
		SwapBehavior string `json:"swapBehavior"`
	} `json:"memorySwap"`
	FeatureGates map[string]bool `json:"featureGates"`
	ResolvConf   string          `json:"resolvConf"`
}

// DecodeLinuxKubeletConfig reads linux-kubelet-config.yaml: YAML or JSON, as the kubelet
// accepts it (sigs.k8s.io/yaml, the same conversion the kubelet's own loader does).
func DecodeLinuxKubeletConfig(file string, b []byte) (LinuxKubeletConfig, error) {
	var c LinuxKubeletConfig
	if err := kubeYAML(file, b, &c); err != nil {
		return c, err
	}
	if c.Kind != "" && c.Kind != "KubeletConfiguration" {
		return c, fail(file, nil, "kind %s, expected KubeletConfiguration", c.Kind)
	}
	return c, nil
}

// KubeProxyConfig holds the KubeProxyConfiguration fields the probes read.
type KubeProxyConfig struct {
	Kind        string `json:"kind"`
	ClusterCIDR string `json:"clusterCIDR"`
	Mode        string `json:"mode"` // iptables, ipvs, nftables; "" is the platform default
}

// DecodeKubeProxyConfig reads linux-kube-proxy-config.yaml.
func DecodeKubeProxyConfig(file string, b []byte) (KubeProxyConfig, error) {
	var c KubeProxyConfig
	if err := kubeYAML(file, b, &c); err != nil {
		return c, err
	}
	if c.Kind != "" && c.Kind != "KubeProxyConfiguration" {
		return c, fail(file, nil, "kind %s, expected KubeProxyConfiguration", c.Kind)
	}
	return c, nil
}

func kubeYAML(file string, b []byte, v any) error {
	t, err := Text(file, b)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(t, v); err != nil {
		return fail(file, err, "not a YAML or JSON configuration: %v", err)
	}
	return nil
}

// LinuxContainerdConfig is what the probes read of a Linux containerd config.toml.
type LinuxContainerdConfig struct {
	Version      int
	SandboxImage string
	CNIBinDir    string // "" when unset: containerd's default /opt/cni/bin
	CNIConfDir   string // "" when unset: /etc/cni/net.d
	// SystemdCgroup is runc's option; nil when unset (false), which must match the
	// kubelet's cgroupDriver.
	SystemdCgroup *bool
}

// DecodeLinuxContainerdConfig reads linux-containerd-config.toml in the config v1
// layout ([plugins.cri], what kubernetes-the-hard-way wrote until 2021), v2
// ([plugins."io.containerd.grpc.v1.cri"]) and v3 ("io.containerd.cri.v1.runtime" and
// "io.containerd.cri.v1.images").
func DecodeLinuxContainerdConfig(file string, b []byte) (LinuxContainerdConfig, error) {
	var c LinuxContainerdConfig
	t, err := Text(file, b)
	if err != nil {
		return c, err
	}
	var root map[string]any
	if _, err := toml.Decode(string(t), &root); err != nil {
		return c, fail(file, err, "not valid TOML: %v", err)
	}
	if v, ok := root["version"].(int64); ok {
		c.Version = int(v)
	}
	plugins, _ := root["plugins"].(map[string]any)
	for _, name := range []string{"cri", "io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images"} {
		p, ok := plugins[name].(map[string]any)
		if !ok {
			continue
		}
		if s, _ := p["sandbox_image"].(string); s != "" {
			c.SandboxImage = s
		}
		if pinned, ok := p["pinned_images"].(map[string]any); ok {
			if s, _ := pinned["sandbox"].(string); s != "" {
				c.SandboxImage = s
			}
		}
		if cni, ok := p["cni"].(map[string]any); ok {
			c.CNIBinDir, _ = cni["bin_dir"].(string)
			c.CNIConfDir, _ = cni["conf_dir"].(string)
		}
		ctrd, _ := p["containerd"].(map[string]any)
		runtimes, _ := ctrd["runtimes"].(map[string]any)
		runc, _ := runtimes["runc"].(map[string]any)
		opts, _ := runc["options"].(map[string]any)
		if v, ok := opts["SystemdCgroup"].(bool); ok {
			c.SystemdCgroup = &v
		}
	}
	return c, nil
}
