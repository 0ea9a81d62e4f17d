package decode

import "testing"

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
