package decode

import (
	"github.com/BurntSushi/toml"
)

// ContainerdConfig is what the probes need from containerd's config.toml.
type ContainerdConfig struct {
	SandboxImage string
}

// DecodeContainerdConfig reads containerd-config.toml. It finds the sandbox image in the
// config v2 layout (plugins."io.containerd.grpc.v1.cri".sandbox_image) and the v3 layout
// (plugins."io.containerd.cri.v1.images".pinned_images.sandbox).
func DecodeContainerdConfig(file string, b []byte) (ContainerdConfig, error) {
	t, err := Text(file, b)
	if err != nil {
		return ContainerdConfig{}, err
	}
	var root map[string]any
	if _, err := toml.Decode(string(t), &root); err != nil {
		return ContainerdConfig{}, fail(file, err, "not valid TOML: %v", err)
	}
	plugins, _ := root["plugins"].(map[string]any)
	var c ContainerdConfig
	if cri, ok := plugins["io.containerd.grpc.v1.cri"].(map[string]any); ok {
		c.SandboxImage, _ = cri["sandbox_image"].(string)
	}
	if imgs, ok := plugins["io.containerd.cri.v1.images"].(map[string]any); ok {
		if pinned, ok := imgs["pinned_images"].(map[string]any); ok {
			if s, _ := pinned["sandbox"].(string); s != "" {
				c.SandboxImage = s
			}
		}
	}
	return c, nil
}
