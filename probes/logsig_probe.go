package probes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// logSignatures (LOG-SIGNATURES): the node's logs and events hold no known failure
// signature that the finding it supports does not already cite. Each signature names its
// probe (signatures()); where that probe reads the same file and cites the line itself,
// this finding only lists it. A line whose probe does not cite it is reported here, under
// that probe's ID, so it is evidence behind a named finding rather than a loose error.
type logSignatures struct{}

func (logSignatures) Spec() Spec {
	return Spec{ID: "LOG-SIGNATURES", Title: "no known failure signature in the logs and events that no finding explains",
		FM: []string{"FM-06", "FM-04", "FM-14", "FM-33", "FM-16"},
		Reads: []evidence.Ref{evidence.KubeletLog, evidence.KubeProxyLog, evidence.LogRuntime, evidence.LogFlanneld,
			evidence.LogStartup, evidence.Events}}
}

// citedBy says which files each citing probe scans with logSupport: a match in one of
// them is in that probe's finding when it fails (TestLogSignaturesAreCited holds them
// to it).
func citedBy() map[string][]string {
	return map[string][]string{
		"HNS-ENDPOINTS":     {evidence.FileKubeletLog, evidence.FileKubeProxyLog, evidence.PathEvents},
		"HNS-KPROXY-NET":    {evidence.FileKubeProxyLog},
		"POD-IMAGE-BUILD":   {evidence.PathEvents, evidence.FileKubeletLog},
		"IMG-PAUSE-BUILD":   {evidence.FileKubeletLog, evidence.PathEvents},
		"NODE-IP":           {evidence.FileKubeletLog},
		"SVC-KPROXY-HEALTH": {evidence.FileKubeProxyLog},
		"RUNTIME-CNI":       {evidence.FileKubeletLog},
		"IMG-LAYERS":        {evidence.FileLogRuntime, evidence.FileKubeletLog, evidence.PathEvents},
		"KUBELET-RESOLV":    {evidence.FileKubeletLog, evidence.PathEvents},
		"IMG-PAUSE":         {evidence.FileKubeletLog, evidence.FileLogRuntime, evidence.PathEvents},
	}
}

func (logSignatures) Check(c C) Finding {
	// The startup log holds the node scripts' own errors (the SDN helpers' adapter lookup).
	ms, read, ignored := c.scanLogs(true, evidence.KubeletLog, evidence.KubeProxyLog, evidence.LogRuntime, evidence.LogFlanneld,
		evidence.LogStartup)
	if len(read) == 0 {
		return c.Skip("no logs or events to read", c.Path(evidence.KubeletLog), c.Path(evidence.KubeProxyLog))
	}
	cited := citedBy()
	groups := map[string][]string{}
	var loose, paths, own, ownIDs []string
	for _, m := range ms {
		probe, name := m.supports(), m.file()
		if probe == "" {
			if !slices.Contains(ownIDs, m.sig.id) {
				ownIDs = append(ownIDs, m.sig.id)
			}
			own = append(own, fmt.Sprintf("%s in %s: %s (%s; %s)", m.sig.id, m.path, clip(m.text, 240), m.sig.means, m.sig.source))
			if !slices.Contains(paths, m.path) {
				paths = append(paths, m.path)
			}
			continue
		}
		line := fmt.Sprintf("%s: %s in %s: %s", probe, m.sig.id, m.path, clip(m.text, 240))
		if slices.Contains(cited[probe], name) {
			groups[probe] = append(groups[probe], line+" (cited by "+probe+" when it fails)")
			continue
		}
		groups[probe] = append(groups[probe], line+" ("+m.sig.means+")")
		if !slices.Contains(loose, probe) {
			loose = append(loose, probe)
		}
		if !slices.Contains(paths, m.path) {
			paths = append(paths, m.path)
		}
	}
	var details []string
	for _, p := range slices.Sorted(maps.Keys(groups)) {
		g := groups[p]
		if len(g) > 3 {
			g = append(g[:3:3], fmt.Sprintf("%s: %d more line(s) of the same", p, len(g)-3))
		}
		details = append(details, g...)
	}
	if ignored > 0 {
		details = append(details, fmt.Sprintf("%d line(s) healthy Windows nodes print (perf counters, /proc, uid 0) ignored", ignored))
	}
	if n := len(own); n > 0 {
		if n > 3 {
			own = append(own[:3:3], fmt.Sprintf("%d more line(s) of the same", len(own)-3))
		}
		f := c.Fail(fmt.Sprintf("%d log line(s) of a failure no other probe judges: %s", n, strings.Join(ownIDs, ", ")), paths...).
			With(own...).With(details...)
		if slices.Contains(ownIDs, "ipam-exhausted") {
			f = f.WithFix(ipamFix(c.id))
		}
		return f
	}
	if len(loose) > 0 {
		slices.Sort(loose)
		return c.Warn(fmt.Sprintf("%d log line(s) are evidence for %s", countLoose(ms, cited), strings.Join(loose, ", ")), paths...).
			With(details...).With("read: " + strings.Join(read, ", "))
	}
	if len(ms) > 0 {
		// Whether those probes fail is theirs to judge (this finding does not see
		// theirs): say who judges the lines, not that a finding cites them.
		judges := slices.Sorted(maps.Keys(groups))
		return c.Pass(fmt.Sprintf("%d known signature line(s), for %s, which read the same file(s) and judge them: a finding that does not pass cites its lines",
			len(ms), strings.Join(judges, ", ")), read...).With(details...)
	}
	return c.Pass("no known failure signature", read...).With(details...)
}

// ipamFix is the manual remedy for host-local reservations of pods that are gone: the
// plugin keeps one file per reserved IP in its dataDir (containernetworking/plugins
// host-local, default /var/lib/cni/networks/<network>, which on Windows is C:\var\lib\cni).
func ipamFix(verify string) *Fix {
	return &Fix{ID: "release-ipam", Title: "Release host-local IP reservations no pod holds", Kind: Manual, Verify: verify,
		Commands: []string{
			"Get-ChildItem C:\\var\\lib\\cni\\networks\\*   # one file per reserved IP (or the CNI config's ipam.dataDir)",
			"kubectl get pods -A -o wide --field-selector spec.nodeName=<node>   # the IPs pods really hold",
			"Remove-Item the files of IPs no pod holds, then let the kubelet retry the sandbox",
		},
		Notes: []string{"leaked HNS endpoints hold addresses too: check HNS-ENDPOINTS first, its fix removes them by ID"}}
}

func countLoose(ms []logMatch, cited map[string][]string) int {
	n := 0
	for _, m := range ms {
		if m.supports() != "" && !slices.Contains(cited[m.supports()], m.file()) {
			n++
		}
	}
	return n
}
