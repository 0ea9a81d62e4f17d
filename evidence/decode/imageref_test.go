package decode

import (
	"strings"
	"testing"
)

// TestDockerHubAliases: the three spellings of Docker Hub and an implied library/ are one
// reference, as distribution/reference's ParseNormalizedNamed makes them.
func TestDockerHubAliases(t *testing.T) {
	want := "docker.io/library/nginx:1.25"
	for _, in := range []string{"nginx:1.25", "library/nginx:1.25", "docker.io/nginx:1.25", "index.docker.io/library/nginx:1.25",
		"index.docker.io/nginx:1.25", "registry-1.docker.io/library/nginx:1.25", "registry-1.docker.io/nginx:1.25"} {
		if got := NormalizeRef(in); got != want {
			t.Errorf("NormalizeRef(%q) = %q, want %q", in, got, want)
		}
	}
	if got := NormalizeRef("index.docker.io/rancher/pause:3.6"); got != "docker.io/rancher/pause:3.6" {
		t.Errorf("namespaced Hub repository: %q", got)
	}
	if got := NormalizeRef("myregistry.io/nginx:1.25"); got != "myregistry.io/nginx:1.25" {
		t.Errorf("another registry gained library/: %q", got)
	}
}

// TestFindImageByID: a reference that is the image's ID (full, without sha256:, or the
// 12-digit short form) finds it; a short or non-hex string does not.
func TestFindImageByID(t *testing.T) {
	const id = "sha256:0e7ba3a6d2d4d1fd2b09ab9b3d9e1a5a6b1e8bd1b0d6ad3d5f3a1ab7c41d9f0a"
	imgs := []Image{{ID: id, Tags: []string{"registry.k8s.io/pause:3.9"}}}
	for _, ref := range []string{id, id[len("sha256:"):], id[len("sha256:") : len("sha256:")+12], "index.docker.io/library/x:1"} {
		_, ok := FindImage(imgs, ref)
		if want := ref != "index.docker.io/library/x:1"; ok != want {
			t.Errorf("FindImage(%q) = %v, want %v", ref, ok, want)
		}
	}
	for _, ref := range []string{"0e7ba3a6", "pause", "sha256:ffff3a6d2d4d1fd2"} {
		if _, ok := FindImage(imgs, ref); ok {
			t.Errorf("FindImage(%q) found the image", ref)
		}
	}
}

// TestContainerdConfigDefinedTwice: Azure/AgentBaker 08fdc8f's containerdtemplate.toml
// repeats [plugins.cri.registry]; containerd's loaders all refuse that, so the decoder
// reads it as refused (with the line), not as undecodable; the merged template decodes.
func TestContainerdConfigDefinedTwice(t *testing.T) {
	const head = "version = 2\n[plugins]\n  [plugins.cri]\n    sandbox_image = \"mcr.microsoft.com/oss/kubernetes/pause:3.6\"\n    [plugins.cri.registry]\n"
	c, err := DecodeContainerdConfig("t", []byte(head+"      [plugins.cri.registry]\n        config_path = \"/etc/containerd/certs.d\"\n"))
	if err != nil || !strings.Contains(c.Refused, "line 6") || !strings.Contains(c.Refused, "plugins.cri.registry") {
		t.Errorf("twice: %+v, %v", c, err)
	}
	c, err = DecodeContainerdConfig("t", []byte(head+"      config_path = 'C:\\ProgramData\\containerd\\certs.d'\n"))
	if err != nil || c.Refused != "" || c.SandboxImage != "mcr.microsoft.com/oss/kubernetes/pause:3.6" {
		t.Errorf("once: %+v, %v", c, err)
	}
	if _, err := DecodeContainerdConfig("t", []byte("<html>502 Bad Gateway</html>\n")); err == nil {
		t.Error("garbage decoded")
	}
}
