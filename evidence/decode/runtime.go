package decode

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// Image is one local container image (evidence.FileImages), from `docker image inspect`
// or `crictl inspecti -o json` (or `crictl images -o json`, which lacks the OS version).
type Image struct {
	ID        string
	Tags      []string
	OS        string
	OSVersion string // e.g. 10.0.17763.1879; "" when the runtime did not say
}

type rawImage struct {
	// docker image inspect
	Id        Str
	RepoTags  Strings
	Os        Str
	OsVersion Str
	// crictl inspecti -o json
	Status *struct {
		ID       Str `json:"id"`
		RepoTags Strings
	} `json:"status"`
	Info *struct {
		ImageSpec struct {
			OS        Str `json:"os"`
			OSVersion Str `json:"os.version"`
		} `json:"imageSpec"`
	} `json:"info"`
	// crictl images -o json
	Images []struct {
		ID       Str `json:"id"`
		RepoTags Strings
	} `json:"images"`
}

// DecodeImages reads images.json.
func DecodeImages(file string, b []byte) ([]Image, error) {
	raws, err := Array[rawImage](file, b)
	if err != nil {
		return nil, err
	}
	var out []Image
	for i, r := range raws {
		switch {
		case r.Status != nil:
			img := Image{ID: string(r.Status.ID), Tags: r.Status.RepoTags}
			if r.Info != nil {
				img.OS, img.OSVersion = string(r.Info.ImageSpec.OS), string(r.Info.ImageSpec.OSVersion)
			}
			out = append(out, img)
		case r.Images != nil:
			for _, im := range r.Images {
				out = append(out, Image{ID: string(im.ID), Tags: im.RepoTags})
			}
		case r.Id != "":
			out = append(out, Image{ID: string(r.Id), Tags: r.RepoTags, OS: string(r.Os), OSVersion: string(r.OsVersion)})
		default:
			return nil, fail(file, nil, "item %d is not an image (no Id, status or images field)", i+1)
		}
	}
	return out, nil
}

// NormalizeRef spells an image reference the way runtimes store it: docker.io/library
// implied for short names and ":latest" when no tag or digest is given. Docker Hub's
// other host names are docker.io too: the distribution reference library
// (distribution/reference normalize.go, which containerd and moby both parse with)
// rewrites "index.docker.io" to "docker.io", and moby's registry package serves
// docker.io from "registry-1.docker.io" (IndexHostname, DefaultV2Registry), the host
// AKS's containerd config mirrors it to; on docker.io an unnamespaced repository is
// "library/<name>" whichever way it was written.
func NormalizeRef(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	name, digest, hasDigest := strings.Cut(ref, "@")
	slash := strings.LastIndex(name, "/")
	if !strings.Contains(name[slash+1:], ":") && !hasDigest {
		name += ":latest"
	}
	first, rest, hasSlash := strings.Cut(name, "/")
	switch {
	case !hasSlash:
		name = "docker.io/library/" + name
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		name = "docker.io/" + name
	case dockerHubAlias(first):
		if !strings.Contains(rest, "/") {
			rest = "library/" + rest
		}
		name = "docker.io/" + rest
	}
	if hasDigest {
		return name + "@" + digest
	}
	return name
}

// dockerHubAlias: the host names that are Docker Hub (distribution/reference
// legacyDefaultDomain "index.docker.io", defaultDomain "docker.io"; moby's
// DefaultRegistryHost "registry-1.docker.io").
func dockerHubAlias(host string) bool {
	switch strings.ToLower(host) {
	case "docker.io", "index.docker.io", "registry-1.docker.io":
		return true
	}
	return false
}

// FindImage returns the image tagged ref (after normalization), or the image whose ID
// ref is: the kubelet and crictl accept an image ID ("sha256:<hex>", or the hex alone)
// where a reference goes, and a runtime resolves it to the same image.
func FindImage(imgs []Image, ref string) (Image, bool) {
	want := NormalizeRef(ref)
	for _, im := range imgs {
		for _, t := range im.Tags {
			if NormalizeRef(t) == want {
				return im, true
			}
		}
	}
	for _, im := range imgs {
		if im.IsID(ref) {
			return im, true
		}
	}
	return Image{}, false
}

// IsID says whether ref names this image by its ID: "sha256:<hex>", the hex alone, or
// the 12-character short ID docker and crictl print (at least 12 hex digits).
func (im Image) IsID(ref string) bool {
	id := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(im.ID)), "sha256:")
	r := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(ref)), "sha256:")
	if id == "" || len(r) < 12 || strings.Trim(r, "0123456789abcdef") != "" {
		return false
	}
	return strings.HasPrefix(id, r)
}

// Repo is a reference without its tag: "mcr.microsoft.com/windows/nanoserver".
func Repo(ref string) string {
	n := NormalizeRef(ref)
	n, _, _ = strings.Cut(n, "@")
	if i := strings.LastIndex(n, ":"); i > strings.LastIndex(n, "/") {
		return n[:i]
	}
	return n
}

// Container is one container or pod sandbox the runtime knows, tied to its pod.
type Container struct {
	ID           string
	PodName      string
	PodNamespace string
	PodUID       string
	State        string
}

type rawContainer struct {
	// docker ps --format '{{json .}}'
	ID    Str
	Names Str
	State Str
	// crictl pods -o json
	Items []struct {
		ID       Str `json:"id"`
		State    Str `json:"state"`
		Metadata struct {
			Name      Str `json:"name"`
			UID       Str `json:"uid"`
			Namespace Str `json:"namespace"`
		} `json:"metadata"`
	} `json:"items"`
}

// DecodeContainers reads containers.json. Docker containers that are not Kubernetes'
// (names not in dockershim's k8s_<container>_<pod>_<namespace>_<uid>_<attempt> form)
// are left out.
func DecodeContainers(file string, b []byte) ([]Container, error) {
	raws, err := Array[rawContainer](file, b)
	if err != nil {
		return nil, err
	}
	var out []Container
	for _, r := range raws {
		for _, it := range r.Items {
			out = append(out, Container{ID: string(it.ID), PodName: string(it.Metadata.Name),
				PodNamespace: string(it.Metadata.Namespace), PodUID: string(it.Metadata.UID), State: string(it.State)})
		}
		if r.ID == "" {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(string(r.Names), "/"), "_")
		if len(parts) != 6 || parts[0] != "k8s" {
			continue
		}
		out = append(out, Container{ID: string(r.ID), PodName: parts[2], PodNamespace: parts[3], PodUID: parts[4], State: string(r.State)})
	}
	return out, nil
}

// ContainerdConfig is what the probes need from containerd's config.toml.
type ContainerdConfig struct {
	SandboxImage string
	// Refused is why containerd itself refuses this file ("" when it loads it): a table
	// or key the file defines twice. Such a file is read, not undecodable: it is the
	// config containerd will fail on.
	Refused string
}

// DecodeContainerdConfig reads containerd-config.toml. It finds the sandbox image in the
// config v1 layout (plugins.cri.sandbox_image), the v2 layout (plugins."io.containerd.grpc.v1.cri".sandbox_image) and the v3 layout
// (plugins."io.containerd.cri.v1.images".pinned_images.sandbox).
func DecodeContainerdConfig(file string, b []byte) (ContainerdConfig, error) {
	t, err := Text(file, b)
	if err != nil {
		return ContainerdConfig{}, err
	}
	var root map[string]any
	if _, err := toml.Decode(string(t), &root); err != nil {
		if why, ok := definedTwice(err); ok {
			return ContainerdConfig{Refused: why}, nil
		}
		return ContainerdConfig{}, fail(file, err, "not valid TOML: %v", err)
	}
	plugins, _ := root["plugins"].(map[string]any)
	var c ContainerdConfig
	if cri, ok := plugins["io.containerd.grpc.v1.cri"].(map[string]any); ok {
		c.SandboxImage, _ = cri["sandbox_image"].(string)
	}
	// The config v1 layout, [plugins.cri], which AKS still writes on Windows
	// (Azure/AgentBaker staging/cse/windows/containerdtemplate.toml).
	if cri, ok := plugins["cri"].(map[string]any); ok && c.SandboxImage == "" {
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

// definedTwice says whether a TOML error is a table or key the file defines twice, and
// how containerd words its refusal. Every TOML library containerd has loaded its config
// with refuses that: BurntSushi/toml (containerd up to 1.4: "Key 'plugins.cri.registry'
// has already been defined."), pelletier/go-toml v1.9.5 (1.5 to 1.7, toml.LoadFile:
// "(63:8): duplicated tables") and pelletier/go-toml/v2 (2.x: "toml: table registry
// already exists"), and containerd then exits with "failed to load TOML"
// (services/server/config LoadConfig). So a file with a repeated header is read the way
// containerd reads it: as one it does not start with, not as one nobody can decode.
func definedTwice(err error) (string, bool) {
	var pe toml.ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "has already been defined") {
		return "", false
	}
	return fmt.Sprintf("line %d: %s (containerd exits at start: failed to load TOML)", pe.Position.Line, pe.Message), true
}
