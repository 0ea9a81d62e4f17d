package decode

import (
	"strings"
)

// Image is one local container image (collectors.NodeImages), from `docker image inspect`
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
// implied for short names and ":latest" when no tag or digest is given.
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
	first, _, hasSlash := strings.Cut(name, "/")
	if !hasSlash || (!strings.ContainsAny(first, ".:") && first != "localhost") {
		if !hasSlash {
			name = "library/" + name
		}
		name = "docker.io/" + name
	}
	if hasDigest {
		return name + "@" + digest
	}
	return name
}

// FindImage returns the image tagged exactly ref (after normalization).
func FindImage(imgs []Image, ref string) (Image, bool) {
	want := NormalizeRef(ref)
	for _, im := range imgs {
		for _, t := range im.Tags {
			if NormalizeRef(t) == want {
				return im, true
			}
		}
	}
	return Image{}, false
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
