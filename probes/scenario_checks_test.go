package probes_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestLogSignaturesAreCited: a line LOG-SIGNATURES says its supported probe cites is in
// that probe's finding whenever the probe does not pass, so no log line is left as a
// loose error and none is claimed by a finding that does not show it.
func TestLogSignaturesAreCited(t *testing.T) {
	claim := regexp.MustCompile(`^([A-Z-]+): (\S+) in (\S+): .* \(cited by ([A-Z-]+) when it fails\)$`)
	checked := 0
	for _, name := range scenarios.Names() {
		got, _ := judged(t, name)
		for key, f := range got {
			if f.Probe != "LOG-SIGNATURES" {
				continue
			}
			for _, d := range f.Details {
				m := claim.FindStringSubmatch(d)
				if m == nil {
					continue
				}
				checked++
				sup, ok := got[f.Node+"/"+m[4]]
				if !ok {
					t.Errorf("%s %s: claims %s cites it, which did not judge the node", name, key, m[4])
					continue
				}
				if sup.Status == probes.Pass {
					continue
				}
				if !slices.Contains(sup.Evidence, m[3]) || !slices.ContainsFunc(sup.Details, func(s string) bool {
					return regexp.MustCompile(`^log signature ` + regexp.QuoteMeta(m[2]) + ` in `).MatchString(s)
				}) {
					t.Errorf("%s: %s is %s but does not cite %s line in %s:\n%v", name, m[4], sup.Status, m[2], m[3], sup.Details)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no scenario has a cited signature: the test checks nothing")
	}
}

// TestRemoveHNSEndpointsFix: on hns-endpoints-leaked the fix previews and passes exactly
// the orphaned endpoints' IDs as they are in hns-endpoints.json, never the host vNIC's or
// a pod's, and after fix-remove-hns-endpoints ran HNS-ENDPOINTS passes.
func TestRemoveHNSEndpointsFix(t *testing.T) {
	const name, node = "hns-endpoints-leaked", "win-1"
	fsys, _, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := evidence.Get(evidence.Evidence{FS: fsys, Memo: evidence.NewMemo()}, node, evidence.HNSEndpoints)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // ID -> IP of the endpoints no running pod or the node owns
	for _, e := range eps {
		if ip := string(e.IPAddress); ip == "10.200.2.7" || ip == "10.200.2.8" {
			want[string(e.ID)] = ip
		}
	}
	got, _ := judged(t, name)
	f := got[node+"/HNS-ENDPOINTS"]
	if f.Status != probes.Fail || f.Fix == nil || f.Fix.Action != "fix-remove-hns-endpoints" || f.Fix.Disruptive {
		t.Fatalf("finding %s %q, fix %+v", f.Status, f.Summary, f.Fix)
	}
	ids, ips := f.Fix.Params["Id"].([]string), f.Fix.Params["IPAddress"].([]string)
	if len(ids) != len(want) || len(ips) != len(ids) {
		t.Fatalf("fix removes %v (%v), want %v", ids, ips, want)
	}
	for i, id := range ids {
		if want[id] != ips[i] {
			t.Errorf("fix removes %s (%s), which is not an orphan (%v)", id, ips[i], want)
		}
		if !slices.ContainsFunc(f.Fix.Commands, func(c string) bool { return strings.Contains(c, id) }) {
			t.Errorf("the preview does not show %s: %v", id, f.Fix.Commands)
		}
	}
	view, err := scenarios.After(name, "fix-remove-hns-endpoints")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := probes.Default().Get("HNS-ENDPOINTS")
	if after := probes.RunProbe(p, node, evidence.Evidence{FS: view}); after[0].Status != probes.Pass {
		t.Errorf("after the fix: %s %q %v", after[0].Status, after[0].Summary, after[0].Details)
	}
}
