package redact

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// Replacement is what every redacted value becomes.
const Replacement = "***REDACTED***"

// Rule is one line-based redaction rule: every match of Regex in a line has Group
// replaced (0: the whole match) by Replacement. Keywords, when given, are a prefilter:
// the regex only runs on lines that contain one of them (case-insensitive), which keeps
// redaction cheap on gigabytes of logs. A rule without keywords runs on every line.
//
// Custom rules come from a YAML or JSON file holding a list of rules (see LoadRules):
//
//	# redact-rules.yaml
//	- name: ticket-system-key
//	  regex: 'X-Ticket-Key: (\S+)'
//	  group: 1
//	  keywords: [x-ticket-key]
type Rule struct {
	Name     string   `json:"name"`
	Regex    string   `json:"regex"`
	Group    int      `json:"group,omitempty"`
	Keywords []string `json:"keywords,omitempty"`

	// find replaces Keywords for built-in rules: sharper prefilters than a literal.
	find []finder
}

// Names of the structural rules, which are not regexes and are always on.
const (
	RulePrivateKey = "private-key" // PEM private key blocks, multi-line or inline
)

// DefaultRules are the built-in regex rules. Rules run in order on each line, so a later
// rule sees the earlier ones' replacements; a value already redacted is never counted
// twice, which makes re-redacting a bundle idempotent. PEM private keys and Kubernetes
// Secret values in JSON are handled structurally on top of these (RulePrivateKey,
// RuleSecretData).
func DefaultRules() []Rule {
	kw := func(ks ...string) []finder {
		var out []finder
		for _, k := range ks {
			out = append(out, keyword(k))
		}
		return out
	}
	pw := kw("passw")
	return []Rule{
		// "password": "s3 cret" in JSON, the quoted value in full.
		{Name: "password-json", Regex: `(?i)"[a-z0-9_.-]*passw(?:or)?d"\s*:\s*"((?:[^"\\]|\\.)+)"`, Group: 1, find: pw},
		// password=x, password: x, Password=x; and Pwd=x; (connection strings), --password=x.
		{Name: "password", Regex: `(?i)(?:passw(?:or)?d|\bpwd)["']?\s*[:=]\s*["']?([^\s"',;&]+)`, Group: 1, find: []finder{keyword("passw"), {"equals", findAssignment}}},
		// -Password x (PowerShell), --password x.
		{Name: "password-flag", Regex: `(?i)(?:^|[\s"'(])--?passw(?:or)?d\s+("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`, Group: 1, find: pw},
		{Name: "securestring-plaintext", Regex: `(?i)ConvertTo-SecureString\s+(?:-String\s+)?("[^"]*"|\\"[^"\\]*\\"|'[^']*')`, Group: 1, find: kw("vertto-securestring")},
		// net user NAME PASSWORD (Windows account set-up in a startup log); /add etc. stay.
		{Name: "net-user", Regex: `(?i)\bnet(?:\.exe)?\s+user\s+("[^"]*"|'[^']*'|\S+)\s+("[^"]*"|'[^']*'|[^\s/"'][^\s"']*)`, Group: 2, find: []finder{netUserFinder()}},
		{Name: "bearer-token", Regex: `(?i)\bbearer\s+([A-Za-z0-9\-._~+/]+=*)`, Group: 1, find: kw("bearer")},
		// Authorization: Basic x, Authorization: Negotiate x, "Authorization": "x".
		{Name: "authorization-header", Regex: `(?i)\bauthorization["']?\s*[:=]\s*["']?(?:(?:basic|bearer|negotiate|ntlm|digest|token|[a-z][a-z0-9-]*)\s+)?([^\s"',;]+)`, Group: 1, find: []finder{authFinder()}},
		// Basic x: a base64 credential holds an upper-case letter, a digit, '+' or '/'
		// somewhere; a lower-case word ("Basic authentication") is prose, not a secret.
		{Name: "basic-auth", Regex: `\b[Bb](?i:asic)\s+([a-z]*[A-Z0-9+/][A-Za-z0-9+/]{7,}=*|[a-z]{8,}=+)`, Group: 1, find: kw("basic")},
		// token: x (kubeconfig), "token": "x", access_token=x.
		{Name: "token", Regex: `(?i)(?:^|[\s{,"'])(?:(?:access|id|refresh|bearer|auth)[-_]?)?token["']?\s*[:=]\s*["']?([^\s"',}]+)`, Group: 1, find: []finder{tokenFinder()}},
		// --token=x, --token x, -Token x (kubeadm join, kubelet args).
		{Name: "token-flag", Regex: `(?i)(?:^|[\s"'(])--?(?:bootstrap-)?token(?:\s+|\s*=\s*)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`, Group: 1, find: []finder{tokenFinder()}},
		{Name: "bootstrap-token", Regex: `\b[a-z0-9]{6}\.[a-z0-9]{16}\b`, find: []finder{{"bootstrap-token", findBootstrapToken}}},
		// The key of a kubeconfig user; client-certificate-data is public and kept.
		{Name: "kubeconfig-client-key", Regex: `(?i)client-key-data["']?\s*:\s*["']?([A-Za-z0-9+/=]+)`, Group: 1, find: kw("key-data")},
		// A whole PEM key on one line, as JSON strings hold it ("-----BEGIN...\n...").
		{Name: RulePrivateKey, Regex: `-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(.*?)-----END`, Group: 1, find: []finder{literalFinder(pemKey)}},
		{Name: "connection-string", Regex: `(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*([^;"'\s]+)`, Group: 1, find: []finder{{"equals", findAssignment}}},
		{Name: "sas-signature", Regex: `(?i)(?:[?&]|\\u0026)sig=([^&"'\s\\]+)`, Group: 1, find: []finder{{"equals", findAssignment}}},
		{Name: "client-secret", Regex: `(?i)client[-_]?secret["']?\s*[:=]\s*["']?([^\s"',;&]+)`, Group: 1, find: []finder{secretFinder()}},
		// api_key=x, apikey: x, x-api-key: x.
		{Name: "api-key", Regex: `(?i)api[-_]?key["']?\s*[:=]\s*["']?([^\s"',;&]+)`, Group: 1, find: []finder{apiKeyFinder()}},
		// SECRET_KEY=x, DB_PASS=x, GITHUB_TOKEN=x, BASIC_AUTH=x: environment assignments
		// (upper case, as environment variables are written) named like a secret; KEY and
		// AUTH only as a part (STORAGE_KEY, AUTH_TOKEN), not a README's KEY=VALUE.
		{Name: "env-assignment", Regex: `\b(?:[A-Z0-9_]*(?:SECRET|PASS|PWD|TOKEN|CREDENTIAL)[A-Z0-9_]*|[A-Z0-9_]+_(?:KEY|AUTH)[A-Z0-9_]*|(?:KEY|AUTH)_[A-Z0-9_]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"',;&]+)`, Group: 1, find: []finder{{"equals", findAssignment}}},
		// containerd's registry auth = "x", identitytoken = "x" (config.toml), kept quoted.
		{Name: "registry-auth", Regex: `(?i)(?:^|[\s{,"'])(?:auth|identitytoken|identity_token|registrytoken|registry_token)["']?\s*[:=]\s*"((?:[^"\\]|\\.)+)"`, Group: 1, find: []finder{authFinder(), tokenFinder()}},
		// A bare JSON Web Token: header and payload are base64url JSON objects.
		{Name: "jwt", Regex: `\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+`, find: []finder{{"jwt", findJWT}}},
		{Name: "aws-access-key-id", Regex: `\b((?:AKIA|ASIA)[0-9A-Z]{16})\b`, Group: 1, find: []finder{{"aws-key-id", findAWSKeyID}}},
		{Name: "aws-secret-access-key", Regex: `(?i)aws[-_]?secret[-_]?access[-_]?key["']?\s*[:=]\s*["']?([^\s"',;&]+)`, Group: 1, find: []finder{secretFinder()}},
		// Windows and Kubernetes node kinds: passwords on command lines,
		// headers, signed URLs, base64-encoded PEM keys.
		// sshpass -p X, mysql -pX: -p is a password only after these tools (mkdir -p is not).
		{Name: "cmdline-password", Regex: `(?i)\b(?:sshpass|mysql|mysqladmin|mysqldump)\b[^\n]*?\s-p\s*("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`, Group: 1, find: kw("sshpass", "mysql")},
		// cmdkey /pass:X, /password:X, /p:X; schtasks /rp X.
		{Name: "slash-password", Regex: `(?i)(?:^|[\s"'])/(?:pass|password|p|rp)(?::|\s+)("[^"]*"|'[^']*'|[^\s/"'][^\s"']*)`, Group: 1, find: kw("/pass", "/p:", "/rp ")},
		// net use \\server\share PASSWORD /user:x
		{Name: "net-use", Regex: `(?i)\bnet(?:\.exe)?\s+use\s+(?:[a-z*]:\s+)?\\\\\S+\s+("[^"]*"|'[^']*'|[^\s/"'][^\s"']*)`, Group: 1, find: kw("net use", "net.exe use")},
		{Name: "cookie-header", Regex: `(?i)\b(?:set-)?cookie["']?\s*:\s*["']?([^\r\n"']+)`, Group: 1, find: kw("cookie")},
		{Name: "x-token-header", Regex: `(?i)\bx-[a-z-]*(?:token|auth|key)["']?\s*[:=]\s*["']?([^\s"',;]+)`, Group: 1, find: kw("x-")},
		// S3 presigned URLs: the signature and session token (the key id is caught above).
		{Name: "s3-presigned", Regex: `(?i)(?:[?&]|\\u0026)x-amz-(?:signature|security-token)=([^&\s"'\\]+)`, Group: 1, find: kw("x-amz-")},
		// A PEM private key in base64 (a kubeconfig's or a Secret's data): "-----BEGIN"
		// is LS0tLS1CRUdJTi, and "PRIVATE KEY" one of three spellings by alignment.
		{Name: "private-key-base64", Regex: `LS0tLS1CRUdJTi[A-Za-z0-9+/]*?(?:UFJJVkFURSBLRVk|BSSVZBVEUgS0VZ|QUklWQVRFIEtFW)[A-Za-z0-9+/=]*`, find: []finder{literalFinder("LS0tLS1CRUdJTi")}},
		// https://user:password@host
		{Name: "url-credentials", Regex: `(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@"']+:([^/\s@"']+)@`, Group: 1, find: []finder{{"url-userinfo", findURLUserinfo}}},
		// https://token@host: userinfo without a password is a credential too (a GitHub
		// token as the user, a proxy's one-part login). Runs after url-credentials, whose
		// replacement keeps the ':' and so is not matched again.
		{Name: "url-user", Regex: `(?i)\b[a-z][a-z0-9+.-]*://([^/\s:@"'?#]+)@`, Group: 1, find: []finder{{"url-user", findURLUser}}},
	}
}

// LoadRules reads custom rules from a YAML or JSON file: a list of {name, regex, group,
// keywords}. Unknown fields are refused, so a typo cannot silently disable a rule.
func LoadRules(path string) ([]Rule, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading redaction rules: %w", err)
	}
	var rules []Rule
	if err := yaml.UnmarshalStrict(b, &rules); err != nil {
		return nil, fmt.Errorf("reading redaction rules %s: want a list of {name, regex, group, keywords}: %w", path, err)
	}
	for i, r := range rules {
		if _, err := compileRule(r); err != nil {
			return nil, fmt.Errorf("redaction rules %s, rule %d: %w", path, i+1, err)
		}
	}
	return rules, nil
}

// compiledRule is a Rule ready to run.
type compiledRule struct {
	name  string
	re    *regexp.Regexp
	group int
	find  []finder // none: the rule may match any line
}

func compileRule(r Rule) (compiledRule, error) {
	if strings.TrimSpace(r.Name) == "" || strings.ContainsAny(r.Name, "\r\n") {
		return compiledRule{}, fmt.Errorf("a rule needs a one-line name")
	}
	re, err := regexp.Compile(r.Regex)
	if err != nil {
		return compiledRule{}, fmt.Errorf("rule %q: %w", r.Name, err)
	}
	if r.Group < 0 || r.Group > re.NumSubexp() {
		return compiledRule{}, fmt.Errorf("rule %q: group %d, but the regex has %d groups", r.Name, r.Group, re.NumSubexp())
	}
	c := compiledRule{name: r.Name, re: re, group: r.Group, find: r.find}
	for _, k := range r.Keywords {
		if k != "" {
			c.find = append(c.find, keyword(k))
		}
	}
	return c, nil
}

// mayMatch is the cheap test: can this rule match somewhere in b (low is b lower-cased)?
func (c *compiledRule) mayMatch(b, low []byte) bool {
	if len(c.find) == 0 {
		return true
	}
	for _, f := range c.find {
		if f.find(b, low) >= 0 {
			return true
		}
	}
	return false
}

// apply replaces the rule's group in every match of line and appends the result to dst.
// It returns the new dst and how many values it replaced.
func (c *compiledRule) apply(dst, line []byte) ([]byte, int) {
	locs := c.re.FindAllSubmatchIndex(line, -1)
	n, last := 0, 0
	for _, loc := range locs {
		s, e := loc[2*c.group], loc[2*c.group+1]
		if s < 0 || e <= s || bytes.HasPrefix(line[s:e], []byte(Replacement)) {
			continue // the group did not take part, is empty, or is redacted already
		}
		s, e = escapedQuoted(line, s, e)
		s, e = escapeSafe(line, s, e)
		s, e = scalarSpan(line, s, e)
		if s < last || keepSpan(line, s, e) {
			continue
		}
		dst = append(dst, line[last:s]...)
		dst = appendReplacement(dst, line, s, e)
		last = e
		n++
	}
	return append(dst, line[last:]...), n
}
