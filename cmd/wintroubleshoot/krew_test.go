package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// krewPlugin mirrors krew's index.Plugin (krew.googlecontainertools.github.com/v1alpha2):
// strict decoding into it rejects fields krew does not know.
type krewPlugin struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		Homepage         string `json:"homepage"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Caveats          string `json:"caveats"`
		Platforms        []struct {
			Selector *metav1.LabelSelector `json:"selector"`
			URI      string                `json:"uri"`
			Sha256   string                `json:"sha256"`
			Files    []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
			Bin string `json:"bin"`
		} `json:"platforms"`
	} `json:"spec"`
}

// TestKrewManifest holds docs/krew/wintroubleshoot.yaml to the rules krew's own
// validation applies (internal/index/validation in sigs.k8s.io/krew), and to ours: the
// binary is kubectl-wintroubleshoot, so kubectl finds it and help says so.
func TestKrewManifest(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "krew", "wintroubleshoot.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p krewPlugin
	if err := yaml.UnmarshalStrict(b, &p); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".yaml")
	switch {
	case p.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || p.Kind != "Plugin":
		t.Fatalf("apiVersion %q kind %q", p.APIVersion, p.Kind)
	case p.Metadata.Name != name || !regexp.MustCompile(`^[\w-]+$`).MatchString(name):
		t.Fatalf("metadata.name %q must be the file name %q", p.Metadata.Name, name)
	case p.Spec.ShortDescription == "" || strings.ContainsAny(p.Spec.ShortDescription, "\r\n"):
		t.Fatalf("shortDescription %q: one line, not empty", p.Spec.ShortDescription)
	case !regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(p.Spec.Version):
		t.Fatalf("version %q: want semver with a v", p.Spec.Version)
	case len(p.Spec.Platforms) == 0:
		t.Fatal("no platforms")
	}
	sha := regexp.MustCompile(`^[a-f0-9]{64}$`)
	seen := map[string]bool{}
	for i, pl := range p.Spec.Platforms {
		if pl.Selector == nil || len(pl.Selector.MatchLabels) == 0 {
			t.Fatalf("platform %d: no selector", i)
		}
		for k := range pl.Selector.MatchLabels {
			if k != "os" && k != "arch" {
				t.Errorf("platform %d: selector key %q (krew knows os and arch)", i, k)
			}
		}
		osName, arch := pl.Selector.MatchLabels["os"], pl.Selector.MatchLabels["arch"]
		seen[osName+"/"+arch] = true
		want := pluginName
		if osName == "windows" {
			want += ".exe"
		}
		if pl.Bin != want {
			t.Errorf("%s/%s: bin %q, want %q (kubectl looks for that name)", osName, arch, pl.Bin, want)
		}
		if !strings.HasPrefix(pl.URI, "https://") || !strings.Contains(pl.URI, "/"+p.Spec.Version+"/") ||
			!strings.HasSuffix(pl.URI, "/"+pluginName+"_"+osName+"_"+arch+".tar.gz") {
			t.Errorf("%s/%s: uri %q is not this version's archive for the platform", osName, arch, pl.URI)
		}
		if !sha.MatchString(pl.Sha256) {
			t.Errorf("%s/%s: sha256 %q (docs/krew/release.sh writes it)", osName, arch, pl.Sha256)
		}
		binShipped := false
		for _, f := range pl.Files {
			if f.From == "" || f.To == "" {
				t.Errorf("%s/%s: file operation %+v needs from and to", osName, arch, f)
			}
			binShipped = binShipped || f.From == pl.Bin
		}
		if !binShipped {
			t.Errorf("%s/%s: files do not install %s", osName, arch, pl.Bin)
		}
	}
	for _, want := range []string{"linux/amd64", "darwin/arm64", "windows/amd64"} {
		if !seen[want] {
			t.Errorf("no %s platform", want)
		}
	}
}
