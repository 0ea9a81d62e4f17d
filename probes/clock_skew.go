package probes

import (
	"fmt"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// clockSkew (CLOCK-SKEW): the node's clock agrees with the API server's (FM-35), read from
// the node's Lease: the kubelet writes renewTime from its own clock every 10 seconds and
// the API server stamps that write's managedFields entry with its clock, so one object
// holds both clocks at one moment, to the second, with no clock of this tool involved.
//
// It fails from 5 minutes: kube-controller-manager's signer backdates the certificates it
// issues by 5 minutes (pkg/controller/certificates/signer, authority.CertificateAuthority
// Backdate: 5 * time.Minute), so a node further behind finds its new kubelet certificate
// "not yet valid", and Kerberos, which gMSA and domain joins need, refuses clocks more
// than 5 minutes apart by default (learn.microsoft.com, "Maximum tolerance for computer
// clock synchronization"). It warns from 1 minute, far beyond what a synchronized
// W32Time keeps; that threshold is this tool's.
type clockSkew struct{}

func (clockSkew) Spec() Spec {
	return Spec{ID: "CLOCK-SKEW", Layouts: allLayouts(),
		Title: "the node's clock is within a minute of the API server's (its Lease's renewTime against the server's write time)",
		FM:    []string{"FM-35"}, Reads: []evidence.Ref{evidence.NodeLeases, evidence.KubeletCerts}}
}

const (
	skewWarn = time.Minute
	skewFail = 5 * time.Minute
)

func (clockSkew) Check(c C) Finding {
	leases, path, bad := need(c, evidence.NodeLeases)
	if bad != nil {
		if bad.Status == Skip {
			return c.Skip("no "+path+": collected since this version (kubectl get leases -n kube-node-lease -o json --show-managed-fields)", path)
		}
		return *bad
	}
	// Every node looks itself up: an index built once per run keeps a fleet linear.
	idx := memoized(c.ev.Memo, path, "probes.leasesByName", func() map[string]int {
		m := make(map[string]int, len(leases))
		for i, l := range leases {
			if _, dup := m[l.Name]; !dup {
				m[l.Name] = i
			}
		}
		return m
	})
	var lc decode.LeaseClock
	i, found := idx[c.node]
	ok := false
	if found && i < len(leases) {
		lc, ok = decode.NodeLeaseClock(leases[i])
	}
	switch {
	case !found:
		return c.Skip(fmt.Sprintf("%s has no Lease for %s: the kubelet has never renewed one (before v1.14, or NodeLease off)", path, c.node), path)
	case !ok:
		return c.Skip(fmt.Sprintf("the Lease of %s in %s lacks renewTime or the managed fields that give the API server's time", c.node, path), path).
			With("collect it with --show-managed-fields (API servers from v1.18 record them)")
	}
	skew := lc.Skew()
	abs := skew.Abs()
	what := fmt.Sprintf("the node's clock is %s %s the API server's (Lease renewTime %s by the kubelet, written at %s by the server's clock, manager %s)",
		abs.Round(time.Second), aheadBehind(skew), lc.Renew.Format(time.RFC3339Nano), lc.Server.Format(time.RFC3339), lc.Manager)
	switch {
	case abs >= skewFail:
		f := c.Fail(what, path).With(c.skewEffects(skew)...).WithFix(timeFix(c.id))
		if p, notYet := c.certNotYetValid(); notYet {
			f = f.Citing(p).With("and the kubelet already holds a certificate that is not yet valid by its clock (" + p + ", KUBELET-CERTS)")
		}
		return f
	case abs >= skewWarn:
		return c.Warn(what, path).With("at 5 minutes new kubelet certificates are not yet valid on the node and Kerberos (gMSA) fails").WithFix(timeFix(c.id))
	}
	return c.Pass(fmt.Sprintf("the node's clock is within %s of the API server's", max(abs.Round(time.Second), time.Second)), path)
}

func aheadBehind(d time.Duration) string {
	if d < 0 {
		return "behind"
	}
	return "ahead of"
}

// skewEffects says what a clock this far off breaks, in its direction.
func (c C) skewEffects(skew time.Duration) []string {
	out := []string{"Kerberos refuses clocks more than 5 minutes apart by default: gMSA pods and domain authentication fail"}
	if skew < 0 {
		return append(out, "certificates kube-controller-manager signs begin 5 minutes before signing: on a clock further behind, a renewed kubelet certificate is \"not yet valid\" (x509: certificate has expired or is not yet valid)")
	}
	return append(out, "a clock ahead sees certificates and tokens expire early; the kubelet's Lease looks renewed in the future")
}

// certNotYetValid reports a kubelet certificate that begins after the node's clock.
func (c C) certNotYetValid() (string, bool) {
	kc, ok := optional(c, evidence.KubeletCerts)
	if !ok {
		return "", false
	}
	now, ok := kc.Now()
	if !ok {
		return "", false
	}
	for _, cert := range kc.Certs {
		if nb, _, ok := cert.Validity(); ok && now.Before(nb) {
			return c.Path(evidence.KubeletCerts), true
		}
	}
	return "", false
}

// timeFix is how to put the node's clock right: the Windows Time service's own commands.
func timeFix(verify string) *Fix {
	return &Fix{ID: "clock-resync", Title: "Synchronize the node's clock", Kind: Manual, Verify: verify,
		Commands: []string{
			"w32tm /query /status /verbose   # Source: 'Local CMOS Clock' or 'Free-running System Clock' means no time source",
			"w32tm /query /configuration   # Type: NT5DS (domain hierarchy), NTP (NtpServer), NoSync",
			"w32tm /config /manualpeerlist:\"<your NTP server>,0x8\" /syncfromflags:manual /update   # a workgroup node; domain members: /syncfromflags:domhier",
			"Restart-Service w32time; w32tm /resync /force",
		},
		Notes: []string{"on a VM, the hypervisor's time integration can fight W32Time: keep one source (Hyper-V: the VMICTimeProvider; VMware Tools time sync off when W32Time uses NTP)"}}
}
