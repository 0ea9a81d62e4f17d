package probes_test

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestKubeletCerts: an expired client certificate fails with kubeadm's steps, one past 90%
// of its life while rotating warns, a missing serving certificate under serverTLSBootstrap
// fails with the CSR commands; a certificate not yet valid fails and says the clock is
// behind; an expired self-signed kubelet.crt only warns while an expired CA-signed serving
// certificate (RKE2's, whose CA is also named "...-ca@<time>") fails; certificate lines in
// the log with valid certificates warn; the layouts pass; evidence without the file skips.
func TestKubeletCerts(t *testing.T) {
	const ka, an, hw, rk = "win-k8s-01", "winpool-7k2pq", "win-1", "win-rke2-01"
	f := judge(t, "KUBELET-CERTS", ka, mustLoad(t, "kubelet-client-cert-expired"))
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "client certificate") || !strings.Contains(f.Summary, "expired 2024-04-16") ||
		f.Fix == nil || f.Fix.Kind != probes.Manual || !strings.Contains(strings.Join(f.Fix.Commands, "\n"), "kubeadm kubeconfig user --org system:nodes --client-name system:node:"+ka) ||
		!detailsHave(f, "part of the existing bootstrap client certificate") {
		t.Errorf("expired: %s %q %v %+v", f.Status, f.Summary, f.Details, f.Fix)
	}
	f = judge(t, "KUBELET-CERTS", ka, mustLoad(t, "kubelet-cert-rotation-stuck"))
	if f.Status != probes.Warn || !strings.Contains(f.Summary, "past 90% of its lifetime") || !strings.Contains(f.Summary, "rotates it but has not") ||
		f.Fix == nil || !strings.Contains(f.Fix.Commands[1], "kubectl certificate approve") {
		t.Errorf("rotation stuck: %s %q %+v", f.Status, f.Summary, f.Fix)
	}
	f = judge(t, "KUBELET-CERTS", an, mustLoad(t, "kubelet-serving-csr-pending"))
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "serverTLSBootstrap is on") || !detailsHave(f, "no serving certificate available for the kubelet") {
		t.Errorf("serving pending: %s %q %v", f.Status, f.Summary, f.Details)
	}
	// Both certificates begin after the node's clock: the client's is judged first.
	f = judge(t, "KUBELET-CERTS", an, edited(t, "healthy-containerd-overlay", "kubelet-certs.json",
		`"NotBefore":  "2022-01-22T10:15:07.6250000Z"`, `"NotBefore":  "2022-03-08T11:30:00.0000000Z"`))
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "not yet valid") || !strings.Contains(f.Summary, "clock is behind") {
		t.Errorf("not yet valid: %s %q", f.Status, f.Summary)
	}
	f = judge(t, "KUBELET-CERTS", hw, edited(t, "healthy-sdn-l2bridge-docker", "kubelet-certs.json",
		`"NotBefore":  "2021-11-28T10:15:00.1250000Z"`, `"NotBefore":  "2021-02-28T10:15:00.1250000Z"`,
		`"NotAfter":  "2022-11-28T10:15:00.1250000Z"`, `"NotAfter":  "2022-02-28T10:15:00.1250000Z"`))
	if f.Status != probes.Warn || !strings.Contains(f.Summary, "kubelet.crt") || !strings.Contains(f.Summary, "self-signed") {
		t.Errorf("self-signed expired: %s %q", f.Status, f.Summary)
	}
	f = judge(t, "KUBELET-CERTS", rk, edited(t, "layout-rke2-calico", "kubelet-certs.json",
		"\"CN=rke2-server-ca@1698060005\",\r\n                      \"NotBefore\":  \"2024-09-07T11:20:05.5000000Z\",\r\n                      \"NotAfter\":  \"2025-09-07T11:20:05.5000000Z\"",
		"\"CN=rke2-server-ca@1698060005\",\r\n                      \"NotBefore\":  \"2023-10-01T11:20:05.5000000Z\",\r\n                      \"NotAfter\":  \"2024-10-01T11:20:05.5000000Z\""))
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "serving-kubelet.crt") {
		t.Errorf("rke2 serving expired: %s %q", f.Status, f.Summary)
	}
	f = judge(t, "KUBELET-CERTS", hw, edited(t, "healthy-sdn-l2bridge-docker", "kubelet.log",
		"Version: v1.20.15\r\n", "Version: v1.20.15\r\nE0308 10:14:02.113093    3416 reflector.go:138] k8s.io/client-go/informers/factory.go:134: Failed to watch *v1.Node: failed to list *v1.Node: Get \"https://10.240.0.10:6443/api/v1/nodes\": x509: certificate has expired or is not yet valid: current time 2022-03-08T10:14:02Z is after 2022-03-01T00:00:00Z\r\n"))
	if f.Status != probes.Warn || !strings.Contains(f.Summary, "the API server's certificate or CA") {
		t.Errorf("log only: %s %q", f.Status, f.Summary)
	}
	for _, c := range []struct{ scenario, node, detail string }{
		{"healthy-sdn-l2bridge-docker", hw, "(kubeconfig-data) valid until"},
		{"healthy-containerd-overlay", an, "kubelet-server-current.pem (cert-dir) valid until"},
		{"layout-eks-vpc-cni", "ip-10-0-45-67.us-west-2.compute.internal", "authenticates another way"},
		{"layout-rke2-calico", rk, "serving-kubelet.crt (tls-cert-file) valid until"},
		{"layout-aks-azure-cni", "akswin000000", "rotateCertificates true (kubelet-flag)"},
	} {
		if f := judge(t, "KUBELET-CERTS", c.node, mustLoad(t, c.scenario)); f.Status != probes.Pass || !detailsHave(f, c.detail) {
			t.Errorf("%s: %s %q %v", c.scenario, f.Status, f.Summary, f.Details)
		}
	}
	if f := judge(t, "KUBELET-CERTS", "akswin000000", mustLoad(t, "layout-aks-kubelet-stopped")); f.Status != probes.Skip || !strings.Contains(f.Summary, "no kubelet process runs") {
		t.Errorf("AKS kubelet stopped (kubeletstart.ps1 hides the flags): %s %q", f.Status, f.Summary)
	}
	old := editedScenario(t, "healthy-containerd-overlay", func(path string, b []byte) []byte {
		if strings.HasSuffix(path, "/kubelet-certs.json") {
			return nil
		}
		return b
	})
	if f := judge(t, "KUBELET-CERTS", an, old); f.Status != probes.Skip {
		t.Errorf("without kubelet-certs.json: %s %q", f.Status, f.Summary)
	}
}
