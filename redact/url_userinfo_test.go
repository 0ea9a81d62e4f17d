package redact

import (
	"strings"
	"testing"
)

// Proxy URLs carry credentials (http://user:password@proxy:3128, or a token as the user):
// the userinfo is redacted in every kind of file, by value in JSON, and what the node's
// snippet already cut (the marker) is neither changed nor counted again.
func TestURLUserinfoRedacted(t *testing.T) {
	for _, tc := range []struct {
		name, file, in, secret, rule string
	}{
		{"password in JSON", "nodes/win-1/proxy.json", `{"Machine": {"HTTPS_PROXY": "http://svc-k8s:Pr0xy%40Pass@proxy.corp:3128"}}`, "Pr0xy%40Pass", "url-credentials"},
		{"env entry in a JSON list", "nodes/win-1/services.json", `[{"Name":"containerd","AppEnvironmentExtra":["HTTP_PROXY=http://u:s3cr3t@p:80"]}]`, "s3cr3t", "url-credentials"},
		{"token as the user, log", "nodes/win-1/log-runtime.log", `time="..." level=info msg="pulling" url="https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/x"`, "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "url-user"},
		{"one-part proxy login, report", "report.md", "containerd's own environment http://proxyuser7@proxy.corp:3128", "proxyuser7", "url-user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, counts := redactString(t, tc.file, tc.in)
			if strings.Contains(out, tc.secret) {
				t.Fatalf("%q kept in %s", tc.secret, out)
			}
			if !strings.Contains(out, Replacement+"@") || counts[tc.rule] != 1 {
				t.Errorf("out %s, counts %v, want one %s", out, counts, tc.rule)
			}
			again, counts2 := redactString(t, tc.file, out)
			if again != out || len(counts2) != 0 {
				t.Errorf("not idempotent: %s %v", again, counts2)
			}
		})
	}
	// What proxy.json.ps1 already cut stays as it is, counted by nobody.
	cut := `{"Machine": {"HTTP_PROXY": "http://` + Replacement + `@proxy.corp:3128"}}`
	if out, counts := redactString(t, "nodes/win-1/proxy.json", cut); out != cut || len(counts) != 0 {
		t.Errorf("the node's marker was redacted again: %s %v", out, counts)
	}
	// URLs without userinfo, image digests and e-mail addresses are not credentials.
	for _, keep := range []string{"https://mcr.microsoft.com/v2/windows/servercore/iis/manifests/ltsc2019",
		"mcr.microsoft.com/windows/servercore@sha256:" + strings.Repeat("ab", 32), "support@example.com",
		"npipe:////./pipe/containerd-containerd", "http://proxy.corp:3128/?user=x@y"} {
		if out, counts := redactString(t, "nodes/win-1/log-kubelet.log", keep); out != keep || len(counts) != 0 {
			t.Errorf("%q redacted: %s %v", keep, out, counts)
		}
	}
}
