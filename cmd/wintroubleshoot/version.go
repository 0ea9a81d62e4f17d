package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// releaseVersion is what docs/krew/release.sh stamps (-ldflags "-X main.releaseVersion=v1.2.3")
// when it builds from a tree without its Git history; empty otherwise.
var releaseVersion string

// version is the one every report's header and bundle manifest names.
var version = buildVersion(releaseVersion).Version

// versionInfo is what a binary knows about its own build (runtime/debug.ReadBuildInfo):
// the module version the go command stamped (a tag, a pseudo-version, or "(devel)"),
// the VCS revision and commit time, whether the tree had local changes, and the Go
// version. A support engineer reading a ticket learns from it which commit judged.
type versionInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
}

// buildVersion reads the running binary's build information; release, when set, is
// the version release.sh named, which wins over "(devel)".
func buildVersion(release string) versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi, release)
}

// versionFrom is buildVersion for given build information (nil: none, as in a binary
// built without module support).
func versionFrom(bi *debug.BuildInfo, release string) versionInfo {
	v := versionInfo{Version: "(devel)"}
	if bi != nil {
		v.GoVersion = bi.GoVersion
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if release != "" {
		v.Version = release
	}
	return v
}

// String is the one line `version` and `--version` print.
func (v versionInfo) String() string {
	var parts []string
	if v.Revision != "" {
		parts = append(parts, "revision "+v.Revision)
	}
	if v.Time != "" {
		parts = append(parts, v.Time)
	}
	if v.Modified {
		parts = append(parts, "with local changes")
	}
	if v.GoVersion != "" {
		parts = append(parts, v.GoVersion)
	}
	if len(parts) == 0 {
		return "wintroubleshoot " + v.Version
	}
	return fmt.Sprintf("wintroubleshoot %s (%s)", v.Version, strings.Join(parts, ", "))
}

// printVersion writes v as text or, with format "json", as one JSON object.
func printVersion(w io.Writer, v versionInfo, format string) error {
	switch format {
	case "", "text":
		_, err := fmt.Fprintln(w, v.String())
		return err
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	return usageErr("--output %q: want text or json", format)
}

func newVersionCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version: module version, VCS revision and time, Go version",
		Example: strings.TrimSpace(`
  wintroubleshoot version
  wintroubleshoot version -o json`),
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return printVersion(streams.Out, buildVersion(releaseVersion), format)
		},
	}
	cmd.Flags().StringVarP(&format, "output", "o", "text", "text or json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]cobra.Completion{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
