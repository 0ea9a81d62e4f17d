package decode

import "testing"

// FuzzKubeletCerts: no input makes the decoder panic, and what it accepts keeps its
// promises: every certificate has a known role and, without an Error, dates in order.
func FuzzKubeletCerts(f *testing.F) {
	f.Add([]byte(`{"Kubelet":true,"CertDir":"C:\\var\\lib\\kubelet\\pki","RotateCertificates":"true","Certs":[{"Role":"client","NotBefore":"2024-01-01T00:00:00Z","NotAfter":"2025-01-01T00:00:00Z"}],"CollectedAt":"2024-06-01T00:00:00Z"}`))
	f.Add([]byte(`{"CertDir":"c:\\k\\pki","Certs":{"Role":"serving","Subject":"CN=a@1","Issuer":"CN=a-ca@1","NotBefore":"/Date(1704067200000)/","NotAfter":"/Date(1735689600000)/"}}`))
	f.Add([]byte(`{"CertDir":"x","Certs":[{"Role":"client","Error":"Access is denied"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := DecodeKubeletCerts("f", b)
		if err != nil {
			return
		}
		for _, c := range k.Certs {
			_ = c.SelfSigned()
			if nb, na, ok := c.Validity(); ok && !na.After(nb) {
				t.Fatalf("accepted a certificate that ends before it begins: %+v", c)
			}
		}
		_, _ = k.Now()
	})
}
