package decode

import (
	"strings"
	"time"
)

// KubeletCerts is kubelet-certs.json: the kubelet's client and serving certificates as
// its PKI folder and kubeconfig hold them (validity only, never a key), and the rotation
// settings from its command line and --config file.
type KubeletCerts struct {
	// Kubelet says whether a kubelet.exe process ran; without one the settings below are
	// the defaults and only the default folder was read.
	Kubelet     bool
	CertDir     Str
	CertDirFrom Str // "kubelet-flag" or "default"
	Kubeconfig  Str
	// RotateCertificates and ServerTLSBootstrap are "true", "false" or "" (set nowhere:
	// the kubelet's default, false); the From fields say "kubelet-flag" or "config".
	RotateCertificates     Str
	RotateFrom             Str
	ServerTLSBootstrap     Str
	ServerTLSBootstrapFrom Str
	Certs                  List[KubeletCert]
	CollectedAt            Str
}

// KubeletCert is one certificate file's leaf.
type KubeletCert struct {
	Role      Str // "client" or "serving"
	From      Str // "cert-dir", "kubeconfig", "kubeconfig-data", "tls-cert-file"
	Path      Str
	Subject   Str
	Issuer    Str
	NotBefore Str
	NotAfter  Str
	// Error is why the file could not be read or decoded; the dates are empty then.
	Error Str
}

// DecodeKubeletCerts reads kubelet-certs.json (one object).
func DecodeKubeletCerts(file string, b []byte) (KubeletCerts, error) {
	k, err := Object[KubeletCerts](file, b)
	if err != nil {
		return k, err
	}
	if k.CertDir == "" {
		return k, fail(file, nil, "kubelet-certs.json has no CertDir")
	}
	for _, s := range []Str{k.RotateCertificates, k.ServerTLSBootstrap} {
		if s != "" && !strings.EqualFold(string(s), "true") && !strings.EqualFold(string(s), "false") {
			return k, fail(file, nil, "kubelet-certs.json: a rotation setting is %q, not true or false", s)
		}
	}
	for i, c := range k.Certs {
		switch strings.ToLower(string(c.Role)) {
		case "client", "serving":
		default:
			return k, fail(file, nil, "kubelet-certs.json: certificate %d has role %q (client or serving)", i, c.Role)
		}
		if c.Error != "" {
			continue
		}
		nb, ok1 := psTime(string(c.NotBefore))
		na, ok2 := psTime(string(c.NotAfter))
		if !ok1 || !ok2 {
			return k, fail(file, nil, "kubelet-certs.json: certificate %s has no readable NotBefore/NotAfter", c.Path)
		}
		if !na.After(nb) {
			return k, fail(file, nil, "kubelet-certs.json: certificate %s ends before it begins", c.Path)
		}
	}
	return k, nil
}

// Now is the node's clock when the snippet ran.
func (k KubeletCerts) Now() (time.Time, bool) { return psTime(string(k.CollectedAt)) }

// Rotates says whether the kubelet renews its client certificate (rotateCertificates).
func (k KubeletCerts) Rotates() bool { return strings.EqualFold(string(k.RotateCertificates), "true") }

// BootstrapsServing says whether the kubelet asks for its serving certificate by CSR
// (serverTLSBootstrap).
func (k KubeletCerts) BootstrapsServing() bool {
	return strings.EqualFold(string(k.ServerTLSBootstrap), "true")
}

// Of lists the certificates of a role.
func (k KubeletCerts) Of(role string) []KubeletCert {
	var out []KubeletCert
	for _, c := range k.Certs {
		if strings.EqualFold(string(c.Role), role) {
			out = append(out, c)
		}
	}
	return out
}

// Validity is the certificate's NotBefore and NotAfter; ok is false for one that could
// not be read.
func (c KubeletCert) Validity() (notBefore, notAfter time.Time, ok bool) {
	nb, ok1 := psTime(string(c.NotBefore))
	na, ok2 := psTime(string(c.NotAfter))
	return nb, na, ok1 && ok2 && c.Error == ""
}

// SelfSigned says whether the certificate is one the kubelet made for itself: client-go's
// util/cert GenerateSelfSignedCertKeyWithFixtures (the kubelet's kubelet.crt) signs the
// leaf "CN=<host>@<unix time>" with a throwaway CA "CN=<host>-ca@<unix time>" of the same
// host and time; a certificate naming itself as its issuer is self-signed too. (A CA named
// "...-ca@<time>" alone is not enough: k3s and RKE2 name their real CAs so.)
func (c KubeletCert) SelfSigned() bool {
	if c.Subject != "" && c.Subject == c.Issuer {
		return true
	}
	leaf, issuer := commonName(string(c.Subject)), commonName(string(c.Issuer))
	host, ts, ok := strings.Cut(leaf, "@")
	return ok && host != "" && ts != "" && strings.Trim(ts, "0123456789") == "" && issuer == host+"-ca@"+ts
}

// commonName is the CN of an X.500 name as .NET prints it ("CN=x, O=y").
func commonName(name string) string {
	for part := range strings.SplitSeq(name, ",") {
		if cn, ok := strings.CutPrefix(strings.TrimSpace(part), "CN="); ok {
			return cn
		}
	}
	return ""
}
