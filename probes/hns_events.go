package probes

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hnsEvents (HNS-EVENTS): in the collected window the Host Network Service did not crash
// and the Host Compute Service created and started containers without errors (FM-18).
//
//   - Service Control Manager 7031 / 7034, "The Host Network Service service terminated
//     unexpectedly": microsoft/SDN networkhealth.ps1's HNSCrash test reads the same
//     message; each crash drops HNS state that kube-proxy and the CNI then rebuild
//     (endpoints lost after an HNS restart: projectcalico/calico#5164).
//   - Hyper-V-Compute errors (Level 1 or 2) carry the HRESULT of the failed call; the
//     table explains the ones hcsshim names (microsoft/hcsshim internal/hcs/errors.go)
//     and the Windows SDK's HCS_E_* codes (computecore.h).
type hnsEvents struct{}

func (hnsEvents) Spec() Spec {
	return Spec{ID: "HNS-EVENTS", Title: "no HNS crash and no HCS create/start failure in the event logs",
		FM: []string{"FM-18"}, Reads: []evidence.Ref{evidence.EventsSCM, evidence.EventsHNS}}
}

// hresults explains the HCS codes seen in event messages, by lower-case hex: the
// HCS_E_* HRESULTs of the Windows SDK (computecore.h) and the ERROR_VMCOMPUTE_* codes
// golang.org/x/sys/windows (zerrors_windows.go) and hcsshim list; each form only where a
// source names it.
func hresults() map[string]string {
	return map[string]string{
		"0x80370100": "HCS_E_TERMINATED_DURING_START: the container exited while starting",
		"0x80370101": "HCS_E_IMAGE_MISMATCH: the container OS does not match the host OS (process isolation needs the same build)",
		"0xc0370101": "ERROR_VMCOMPUTE_IMAGE_MISMATCH: the container OS does not match the host OS",
		"0x80370106": "HCS_E_UNEXPECTED_EXIT: the container exited unexpectedly",
		"0x80370102": "HCS_E_HYPERV_NOT_INSTALLED: Hyper-V isolation needs the Hyper-V feature",
		"0xc0370106": "ERROR_VMCOMPUTE_UNEXPECTED_EXIT: the compute system exited unexpectedly",
		"0xc0370109": "ERROR_VMCOMPUTE_TIMEOUT: the HCS call timed out (vmcompute overloaded or hung)",
		"0x803b0010": "HCN_E_NETWORK_ALREADY_EXISTS: an HNS network of that name exists",
	}
}

// explainHRESULT looks a code up, whatever its case.
func explainHRESULT(h string) (string, bool) {
	why, ok := hresults()[strings.ToLower(h)]
	return why, ok
}

// hnsCrash says whether an SCM event is the HNS service terminating unexpectedly. The
// message is localized, so the ID decides and the service name confirms (its display
// name "Host Network Service", or the short name in brackets on newer builds).
func hnsCrash(e decode.WinEvent) bool {
	if e.Id != 7031 && e.Id != 7034 {
		return false
	}
	m := strings.ToLower(string(e.Message))
	return strings.Contains(m, "host network service") || strings.Contains(m, "(hns)")
}

// hcsFailure says whether an HNS/HCS log event is an error of the compute service.
func hcsFailure(e decode.WinEvent) bool {
	return (e.Level == 1 || e.Level == 2) && strings.Contains(strings.ToLower(string(e.ProviderName)), "compute")
}

func (hnsEvents) Check(c C) Finding {
	scm, scmPath, bad := need(c, evidence.EventsSCM)
	if bad != nil {
		return c.notCollected(scmPath, bad)
	}
	cites := []string{scmPath}
	var crashes, details []string
	for _, e := range scm {
		if hnsCrash(e) {
			crashes = append(crashes, fmt.Sprintf("%s event %d: %s", e.TimeCreated, e.Id, firstLine(string(e.Message))))
		}
	}
	hns, hnsPath, missing := need(c, evidence.EventsHNS)
	var hcs []string
	hresultRe := regexp.MustCompile(`0[xX][0-9a-fA-F]{8}`)
	if missing == nil {
		cites = append(cites, hnsPath)
		for _, e := range hns {
			if !hcsFailure(e) {
				continue
			}
			line := fmt.Sprintf("%s %s event %d: %s", e.TimeCreated, e.ProviderName, e.Id, firstLine(string(e.Message)))
			for _, h := range hresultRe.FindAllString(string(e.Message), -1) {
				if why, ok := explainHRESULT(h); ok {
					line += " [" + h + " = " + why + "]"
				}
			}
			hcs = append(hcs, line)
		}
	} else {
		details = append(details, "HCS events not judged: "+missing.Summary)
	}
	details = append(append(details, crashes...), hcs...)
	switch {
	case len(crashes) > 0:
		return c.Fail(fmt.Sprintf("the Host Network Service terminated unexpectedly %d time(s)", len(crashes)), cites...).
			With(details...).
			With("each crash drops HNS state: endpoints and load balancers are rebuilt, pods lose networking meanwhile").
			WithFix(hnsRestartFix(c.id))
	case len(hcs) > 0:
		return c.Warn(fmt.Sprintf("%d Host Compute Service error(s)", len(hcs)), cites...).With(details...)
	}
	return c.Pass(fmt.Sprintf("no HNS crash among %d SCM event(s)", len(scm)), cites...).With(details...)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// hnsRestartFix is the hnsautomitigator sequence failure mode FM-18 cites: restart HNS, then
// kube-proxy so it reprograms its policies. Disruptive: every pod on the node loses
// networking while HNS restarts.
func hnsRestartFix(verify string) *Fix {
	return &Fix{ID: "restart-hns", Title: "Restart HNS, then kube-proxy", Kind: Manual, Verify: verify, Disruptive: true,
		Impact:   "every pod on the node loses networking until HNS and kube-proxy have rebuilt their state",
		Commands: []string{"Restart-Service -Name hns -Force", "Restart-Service -Name kube-proxy -Force   # or kubeproxy, by the service's name"},
		Notes: []string{"repeated crashes: collect `wintroubleshoot snapshot` and microsoft/SDN collectlogs.ps1 for Microsoft support; " +
			"networkhealth's resolution for a deadlocked HNS is a restart of the computer"}}
}
