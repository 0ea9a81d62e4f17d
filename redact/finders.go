package redact

import (
	"bytes"
	"strings"
)

// finder returns the offset of the first place in b (low is b lower-cased) where a rule
// may match, or -1. Finders are what keeps redaction fast: the regex runs only on the
// lines they point at. Rules sharing a finder (same key) share its scan.
type finder struct {
	key  string
	find func(b, low []byte) int
}

// keyword finds a literal, ignoring case.
func keyword(kw string) finder {
	k := []byte(strings.ToLower(kw))
	return finder{"keyword:" + string(k), func(_, low []byte) int { return bytes.Index(low, k) }}
}

// literalFinder finds a literal, minding case.
func literalFinder(s string) finder {
	k := []byte(s)
	return finder{"literal:" + s, func(b, _ []byte) int { return bytes.Index(b, k) }}
}

// wordThen finds a word (ignoring case) where accept, given the word's offset in low,
// agrees. key names the finder: rules using the same key share one scan.
func wordThen(key, word string, accept func(low []byte, at int) bool) finder {
	k := []byte(word)
	return finder{key, func(_, low []byte) int {
		for from := 0; ; {
			j := bytes.Index(low[from:], k)
			if j < 0 {
				return -1
			}
			if at := from + j; accept(low, at) {
				return at
			}
			from += j + 1
		}
	}}
}

// tokenFinder serves both token rules: "token" assigned (token: x, access_token=x) or
// as a flag (--token x, -Token x).
func tokenFinder() finder {
	// Anchored on "ken": 'k' is rare in logs, 't' is everywhere.
	return wordThen("token", "ken", func(low []byte, at int) bool {
		t := at - 2
		return t >= 0 && low[t] == 't' && low[t+1] == 'o' && (t > 0 && low[t-1] == '-' || assigns(low, at+len("ken")))
	})
}

// secretFinder serves client_secret=x and aws_secret_access_key=x.
func secretFinder() finder {
	return wordThen("secret", "cret", func(low []byte, at int) bool {
		if at < 2 || low[at-2] != 's' || low[at-1] != 'e' {
			return false
		}
		i := at + len("cret")
		j, ok := skipWords(low, i, []string{"access", "key"})
		return assigns(low, i) || ok && assigns(low, j)
	})
}

// skipWords matches words at low[i:], each after an optional '-' or '_'.
func skipWords(low []byte, i int, words []string) (int, bool) {
	for _, w := range words {
		if i < len(low) && (low[i] == '-' || low[i] == '_') {
			i++
		}
		if !bytes.HasPrefix(low[i:], []byte(w)) {
			return i, false
		}
		i += len(w)
	}
	return i, true
}

// assigns reports whether low[i:] starts with an optional quote, blanks, then ':' or '='.
func assigns(low []byte, i int) bool {
	if i < len(low) && (low[i] == '"' || low[i] == '\'') {
		i++
	}
	for i < len(low) && (low[i] == ' ' || low[i] == '\t') {
		i++
	}
	return i < len(low) && (low[i] == ':' || low[i] == '=')
}

// netUserFinder finds "user" after "net " or "net.exe ".
func netUserFinder() finder {
	return wordThen("net-user", "user", func(low []byte, at int) bool {
		i := at
		for i > 0 && (low[i-1] == ' ' || low[i-1] == '\t') {
			i--
		}
		return i < at && (bytes.HasSuffix(low[:i], []byte("net")) || bytes.HasSuffix(low[:i], []byte("net.exe")))
	})
}

// apiKeyFinder finds "key" after "api", maybe with '-' or '_' between: apikey, api_key,
// x-api-key.
func apiKeyFinder() finder {
	return wordThen("api-key", "key", func(low []byte, at int) bool {
		before := low[:at]
		if n := len(before); n > 0 && (before[n-1] == '-' || before[n-1] == '_') {
			before = before[:n-1]
		}
		return bytes.HasSuffix(before, []byte("api"))
	})
}

// authFinder serves the rules on "auth": assigned (auth = "x" in containerd's config,
// "auth": "x" in docker's) or the Authorization header, in one scan.
func authFinder() finder {
	return wordThen("auth", "uth", func(low []byte, at int) bool {
		end := at + len("uth")
		return at > 0 && low[at-1] == 'a' && (assigns(low, end) || bytes.HasPrefix(low[end:], []byte("orization")))
	})
}

// findJWT finds "eyJ", anchored on the rare 'J'.
func findJWT(b, _ []byte) int {
	for from := 0; ; {
		j := bytes.IndexByte(b[from:], 'J')
		if j < 0 {
			return -1
		}
		if at := from + j; at >= 2 && b[at-2] == 'e' && b[at-1] == 'y' {
			return at - 2
		}
		from += j + 1
	}
}

// findAWSKeyID finds "AKIA" or "ASIA".
func findAWSKeyID(b, _ []byte) int {
	for from := 0; ; {
		j := bytes.IndexByte(b[from:], 'A')
		if j < 0 {
			return -1
		}
		at := from + j
		if at+4 <= len(b) && (b[at+1] == 'K' || b[at+1] == 'S') && b[at+2] == 'I' && b[at+3] == 'A' {
			return at
		}
		from = at + 1
	}
}

// findAssignment serves the rules on '=': sig=x (SAS URLs), Pwd=x and AccountKey=x
// (connection strings), and NAME=value where NAME is
// an upper-case environment variable naming a secret (SECRET_KEY, DB_PASSWORD,
// GITHUB_TOKEN, API_KEY). One scan for '=' instead of one per word.
func findAssignment(b, low []byte) int {
	for from := 0; ; {
		j := bytes.IndexByte(b[from:], '=')
		if j < 0 {
			return -1
		}
		eq := from + j
		end := eq
		for end > 0 && (b[end-1] == ' ' || b[end-1] == '\t') {
			end--
		}
		for _, k := range []string{"sig", "pwd", "accountkey", "sharedaccesskey", "sharedaccesssignature"} {
			if bytes.HasSuffix(low[:end], []byte(k)) {
				return end - len(k)
			}
		}
		start := end
		for start > 0 && (b[start-1] >= 'A' && b[start-1] <= 'Z' || b[start-1] >= '0' && b[start-1] <= '9' || b[start-1] == '_') {
			start--
		}
		if name := string(b[start:end]); start < end && (strings.Contains(name, "SECRET") || strings.Contains(name, "PASSW") ||
			strings.Contains(name, "TOKEN") || strings.Contains(name, "KEY") || strings.Contains(name, "PASS") ||
			strings.Contains(name, "PWD") || strings.Contains(name, "AUTH") || strings.Contains(name, "CREDENTIAL")) {
			return start
		}
		from = eq + 1
	}
}

// findBootstrapToken finds "[a-z0-9]{6}.[a-z0-9]{16}" without a regex: a bootstrap
// token has no literal to look for, and most log lines have dots.
func findBootstrapToken(b, _ []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '.')
		if j < 0 {
			return -1
		}
		d := i + j
		if d >= 6 && d+17 <= len(b) && tokenRun(b[d-6:d]) && tokenRun(b[d+1:d+17]) {
			return d - 6
		}
		i = d + 1
	}
}

// findURLUserinfo finds "scheme://user:password@", anchored on the '@' (rare in logs,
// where "://" and ':' are everywhere): back from it to "://", with a ':' between.
func findURLUserinfo(b, _ []byte) int {
	for from := 0; ; {
		j := bytes.IndexByte(b[from:], '@')
		if j < 0 {
			return -1
		}
		at := from + j
		colon := false
	back:
		for i := at - 1; i >= 0 && i >= at-4096; i-- {
			switch b[i] {
			case ':':
				colon = true
			case '/':
				if colon && i >= 2 && b[i-1] == '/' && b[i-2] == ':' {
					return i - 2
				}
				break back
			case ' ', '"', '\'', '\n', '\t', '@':
				break back
			}
		}
		from = at + 1
	}
}

// findURLUser finds "scheme://user@" (no ':' in the userinfo), anchored on the '@' like
// findURLUserinfo: back from it to "://" over no ':', '/' or separator.
func findURLUser(b, _ []byte) int {
	for from := 0; ; {
		j := bytes.IndexByte(b[from:], '@')
		if j < 0 {
			return -1
		}
		at := from + j
	back:
		for i := at - 1; i >= 0 && i >= at-4096; i-- {
			switch b[i] {
			case '/':
				if i >= 2 && i < at-1 && b[i-1] == '/' && b[i-2] == ':' {
					return i - 2
				}
				break back
			case ':', ' ', '"', '\'', '\n', '\t', '@', '?', '#':
				break back
			}
		}
		from = at + 1
	}
}

func tokenRun(b []byte) bool {
	for _, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
