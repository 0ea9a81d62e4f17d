package probes

import (
	"fmt"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// kubeletCerts (KUBELET-CERTS): the kubelet's client certificate (how it authenticates
// to the API server) and serving certificate (port 10250) are valid at the node's clock,
// and are renewed before they expire (FM-34), from kubelet-certs.json and the kubelet's log.
//
// An expired or not yet valid client certificate leaves the node NotReady: every request
// the kubelet makes fails with Go's "x509: certificate has expired or is not yet valid".
// A certificate whose NotBefore is after the node's clock says the clock is behind (the
// signer's clock issued it; CLOCK-SKEW judges the clock itself).
//
// Ahead of expiry it warns from the latest moment the kubelet's own rotation would have
// begun: client-go's certificate manager (k8s.io/client-go/util/certificate,
// certificate_manager.go nextRotationDeadline/jitteryDuration) renews at a random point
// between 70% and 90% of the certificate's lifetime, so a rotating kubelet still holding a
// certificate past 90% failed to renew (a CSR nobody approved, the signer down), and a
// kubelet without rotation (rotateCertificates false, the kubelet's default) gets no
// closer warning than that from anyone.
//
// The serving certificate matters where something verifies it: the API server only with
// --kubelet-certificate-authority, metrics-server without --kubelet-insecure-tls. The
// self-signed kubelet.crt the kubelet writes for itself (cmd/kubelet/app/server.go
// InitializeTLS, valid one year, never renewed while the file exists) verifies against
// nothing, so its expiry warns; a CA-signed one (serverTLSBootstrap, tlsCertFile) fails.
// With serverTLSBootstrap on and no serving certificate yet, 10250 has none to offer until
// someone approves the kubelet's CSR (kubeadm: "Enabling signed kubelet serving
// certificates"; kube-controller-manager does not approve kubernetes.io/kubelet-serving).
type kubeletCerts struct{}

func (kubeletCerts) Spec() Spec {
	return Spec{ID: "KUBELET-CERTS", Layouts: allLayouts(),
		Title: "the kubelet's client and serving certificates are valid now and renewed before they expire",
		FM:    []string{"FM-34"}, Reads: []evidence.Ref{evidence.KubeletCerts, evidence.KubeletLog}}
}

// certWordings are the kubelet log lines of a certificate problem, each a set of words
// that must all be on the line: Go's crypto/x509 CertificateInvalidError (Expired: "x509:
// certificate has expired or is not yet valid"), client-go's certificate manager failing
// to renew ("Failed while requesting a signed certificate from the control plane", "from
// the master" before v1.20; "Certificate request was not signed"), the kubelet serving TLS
// without a certificate (pkg/kubelet: "no serving certificate available for the kubelet"),
// and its bootstrap finding its certificate expired (pkg/kubelet/certificate/bootstrap:
// "part of the existing bootstrap client certificate in ... is expired").
func certWordings() [][]string {
	return [][]string{
		{"certificate has expired or is not yet valid"},
		{"failed while requesting a signed certificate from the"},
		{"certificate request was not signed"},
		{"no serving certificate available for the kubelet"},
		{"existing bootstrap client certificate", "is expired"},
	}
}

func (kubeletCerts) Check(c C) Finding {
	kc, path, bad := need(c, evidence.KubeletCerts)
	if bad != nil {
		return c.notCollected(path, bad)
	}
	// The snippet records the node's clock with the certificates: no other file's time
	// stands in for it (host.json may come from another collection).
	now, ok := kc.Now()
	if !ok {
		return c.Skip(path+" has no CollectedAt, so the certificates' validity cannot be judged against the node's clock", path).
			With("collect again with this version (the snippet records the node's clock)")
	}
	j := certJudge{kc: kc, now: now}
	j.client()
	j.serving()
	if len(kc.Certs) == 0 && !j.servingPending {
		why := "the kubelet runs"
		if !kc.Kubelet {
			why = "no kubelet process runs and its service's command line names no --cert-dir (a wrapper script, or another service starts it)"
		}
		return c.Skip(fmt.Sprintf("no kubelet certificate found in %s nor in a kubeconfig: %s", kc.CertDir, why), path).
			With("look where the kubelet's --cert-dir points (its command line while it runs) and collect again")
	}
	logLines, logPath := c.certLogLines()
	if len(logLines) > 0 {
		j.notes = append(j.notes, fmt.Sprintf("%s: %d certificate line(s), the last: %s", logPath, len(logLines), logLines[len(logLines)-1]))
		if len(j.fails)+len(j.warns) == 0 {
			j.warns = append(j.warns, "the kubelet logged certificate failures although its own certificates are valid now: the API server's certificate or CA, a proxy's, or an earlier state ("+logLines[len(logLines)-1]+")")
		}
	}
	j.notes = append(j.notes, j.settings())
	cites := []string{path, logPath}
	switch {
	case len(j.fails) > 0:
		return c.Fail(j.fails[0], cites...).With(j.fails[1:]...).With(j.warns...).With(j.notes...).WithFix(j.fix(c.id, c.node))
	case len(j.warns) > 0:
		return c.Warn(j.warns[0], cites...).With(j.warns[1:]...).With(j.notes...).WithFix(j.fix(c.id, c.node))
	}
	return c.Pass(j.summary(), path).With(j.notes...)
}

// certLogLines are the kubelet log's certificate lines (at most the last 5).
func (c C) certLogLines() ([]string, string) {
	b, ok := optional(c, evidence.KubeletLog)
	p := c.Path(evidence.KubeletLog)
	if !ok {
		return nil, ""
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		l := strings.ToLower(line)
		for _, words := range certWordings() {
			if allIn(l, words) {
				out = append(out, strings.TrimSpace(line))
				break
			}
		}
	}
	if len(out) > 5 {
		out = out[len(out)-5:]
	}
	return out, p
}

// certJudge collects what the certificates say.
type certJudge struct {
	kc                  decode.KubeletCerts
	now                 time.Time
	fails, warns, notes []string
	clientBad           bool // the client certificate is expired, not yet valid or missing
	notYet              bool // a certificate begins after the node's clock
	servingPending      bool // serverTLSBootstrap on, no serving certificate
}

// rotationLimit is the latest point client-go's certificate manager renews at: 90% of
// the lifetime after NotBefore.
func rotationLimit(nb, na time.Time) time.Time { return nb.Add(na.Sub(nb) * 9 / 10) }

func days(d time.Duration) string {
	if d < 2*time.Hour {
		return fmt.Sprintf("%.0f minutes", d.Minutes())
	}
	if d < 48*time.Hour {
		return fmt.Sprintf("%.0f hours", d.Hours())
	}
	return fmt.Sprintf("%.0f days", d.Hours()/24)
}

func (j *certJudge) client() {
	certs := j.kc.Of("client")
	if len(certs) == 0 {
		if j.kc.Kubelet {
			j.notes = append(j.notes, "no client certificate found in "+string(j.kc.CertDir)+" nor in the kubelet's kubeconfig: it authenticates another way (a token), not judged")
		}
		return
	}
	for _, cert := range certs {
		j.one(cert, "client", true)
	}
}

func (j *certJudge) serving() {
	certs := j.kc.Of("serving")
	if len(certs) == 0 && j.kc.BootstrapsServing() && j.kc.Kubelet {
		j.servingPending = true
		j.fails = append(j.fails, "serverTLSBootstrap is on and the kubelet has no serving certificate in "+string(j.kc.CertDir)+
			" (no kubelet-server-current.pem): its CSR waits for approval, and kubectl logs, exec and port-forward, and metrics-server, fail on port 10250 (\"tls: internal error\")")
		return
	}
	for _, cert := range certs {
		j.one(cert, "serving", !cert.SelfSigned())
	}
}

// one judges one certificate; critical says an invalid one breaks the node (a client
// certificate, a CA-signed serving one) rather than warns.
func (j *certJudge) one(cert decode.KubeletCert, role string, critical bool) {
	what := fmt.Sprintf("the kubelet's %s certificate %s (%s)", role, cert.Path, cert.From)
	nb, na, ok := cert.Validity()
	if !ok {
		j.warns = append(j.warns, what+" could not be read: "+string(cert.Error))
		return
	}
	add := func(msg string) {
		if critical {
			j.fails = append(j.fails, msg)
			j.clientBad = j.clientBad || role == "client"
		} else {
			j.warns = append(j.warns, msg+" (self-signed: only a client that verifies the kubelet's certificate, such as metrics-server without --kubelet-insecure-tls, fails)")
		}
	}
	switch limit := rotationLimit(nb, na); {
	case j.now.Before(nb):
		j.notYet = true
		add(fmt.Sprintf("%s is not yet valid: it begins %s, %s after the node's clock (%s): the node's clock is behind; x509 refuses it (\"certificate has expired or is not yet valid\")",
			what, nb.Format(time.RFC3339), days(nb.Sub(j.now)), j.now.Format(time.RFC3339)))
	case !j.now.Before(na):
		add(fmt.Sprintf("%s expired %s, %s ago (node clock %s): x509 refuses it (\"certificate has expired or is not yet valid\")",
			what, na.Format(time.RFC3339), days(j.now.Sub(na)), j.now.Format(time.RFC3339)))
	case j.now.After(limit):
		why := "rotateCertificates is off, so the kubelet will not renew it"
		if role == "serving" {
			why = "serverTLSBootstrap is off, so the kubelet will not renew it"
			if j.kc.BootstrapsServing() {
				why = "the kubelet rotates it but has not: its CSR is pending or was denied"
			}
		} else if j.kc.Rotates() {
			why = "the kubelet rotates it but has not: its CSR is pending or was denied, or the signer did not answer"
		}
		j.warns = append(j.warns, fmt.Sprintf("%s expires %s, in %s: past 90%% of its lifetime, the latest point the kubelet's certificate manager renews at; %s",
			what, na.Format(time.RFC3339), days(na.Sub(j.now)), why))
	default:
		j.notes = append(j.notes, fmt.Sprintf("%s valid until %s (%s left; %s)", what, na.Format(time.RFC3339), days(na.Sub(j.now)), cert.Subject))
	}
}

func (j *certJudge) settings() string {
	val := func(v decode.Str, from decode.Str) string {
		if v == "" {
			return "unset (default false)"
		}
		return string(v) + " (" + string(from) + ")"
	}
	return fmt.Sprintf("rotateCertificates %s, serverTLSBootstrap %s, cert dir %s (%s)",
		val(j.kc.RotateCertificates, j.kc.RotateFrom), val(j.kc.ServerTLSBootstrap, j.kc.ServerTLSBootstrapFrom), j.kc.CertDir, j.kc.CertDirFrom)
}

func (j *certJudge) summary() string {
	n := len(j.kc.Certs)
	if n == 0 {
		return "no kubelet certificate files to judge"
	}
	return fmt.Sprintf("the kubelet's %d certificate(s) are valid and not yet due for renewal", n)
}

// fix is what a person does: approve the pending CSRs (the cluster's policy decides), or
// give the kubelet a new client certificate the way kubeadm's troubleshooting guide says.
func (j *certJudge) fix(verify, node string) *Fix {
	cmds := []string{
		"kubectl get csr --sort-by=.metadata.creationTimestamp   # the node's CSRs: REQUESTOR system:node:" + node + " or a bootstrap token, CONDITION Pending",
		"kubectl certificate approve <csr-name>   # only a CSR you checked is this node's",
	}
	notes := []string{"client-go's certificate manager renews between 70% and 90% of a certificate's lifetime when rotation is on (rotateCertificates: true, serverTLSBootstrap: true for serving)"}
	if j.notYet {
		cmds = append(cmds, "w32tm /query /status /verbose   # a certificate not yet valid means the node's clock is behind: fix its time source first (CLOCK-SKEW), then w32tm /resync /force")
	}
	if j.clientBad {
		cmds = append(cmds,
			"# an expired client certificate without a working bootstrap (kubeadm troubleshooting, \"Kubelet client certificate rotation fails\"): on a control plane node",
			"kubeadm kubeconfig user --org system:nodes --client-name system:node:"+node+" > kubelet.conf",
			"# copy kubelet.conf over the kubelet's --kubeconfig on the node, move "+string(j.kc.CertDir)+"\\kubelet-client-*.pem away, then: Restart-Service kubelet")
		notes = append(notes, "set rotateCertificates: true in the kubelet's config so it renews by itself")
	}
	return &Fix{ID: "kubelet-certs", Title: "Renew the kubelet's certificates", Kind: Manual, Verify: verify, Commands: cmds, Notes: notes}
}

// allIn says whether every word is in s.
func allIn(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
