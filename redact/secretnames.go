package redact

import "strings"

// secretName reports whether a key or an env variable name is one whose value is a
// secret: password, DB_PASSWORD, client-key-data, api_key, identitytoken, auth.
func secretName(k string) bool {
	n := normName(k)
	switch n {
	case "pwd", "pass", "auth", "authorization", "proxyauthorization", "cookie", "setcookie", "credential", "credentials",
		"connectionstring", "accountkey", "sharedaccesskey":
		return true
	}
	for _, suf := range []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "secretkey",
		"privatekey", "accesskey", "keydata"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

// strongSecretName reports whether a key is a secret's name itself (password, token,
// credentials), not one that ends like it (serviceAccountToken, a pod's projected
// volume source): whatever value it has, an object, a list, a number or a boolean, is
// the secret.
func strongSecretName(k string) bool {
	switch normName(k) {
	case "password", "passwords", "passwd", "pwd", "passphrase", "secret", "secrets", "token", "tokens",
		"apikey", "apikeys", "secretkey", "privatekey", "accesskey", "credential", "credentials", "clientsecret",
		"accesstoken", "refreshtoken", "idtoken", "authtoken", "bearertoken":
		return true
	}
	return false
}

// normName lower-cases a name and drops the separators people put in it.
func normName(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c == '-' || c == '_' || c == '.' || c == ' ':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// countName reports whether a secret-like key is also the name of a count or a verdict:
// "pass" holds a password in a config, but {"pass": 5} is a test summary (our own
// findings.json, JUnit tooling) and {"pass": true} a result, so only its strings are
// secrets.
func countName(k string) bool { return normName(k) == "pass" }
