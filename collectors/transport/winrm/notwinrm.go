package winrm

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// notWinRMError is an HTTP answer from something that is not a WinRM listener: a web
// server, a proxy's error page, a kubelet or an application on the port. WinRM answers
// every request but an authentication challenge with a SOAP envelope
// (application/soap+xml), or, for a few refusals, with an empty body.
type notWinRMError struct {
	addr        string
	status      int
	contentType string
	title       string // an HTML page's <title>, which usually names the server
}

func (e *notWinRMError) Error() string {
	s := fmt.Sprintf("the server at %s answered HTTP %d %s but is not a WinRM endpoint", e.addr, e.status, http.StatusText(e.status))
	var about []string
	if e.contentType != "" {
		about = append(about, "Content-Type "+e.contentType)
	}
	if e.title != "" {
		about = append(about, fmt.Sprintf("page title %q", e.title))
	}
	if len(about) > 0 {
		s += " (" + strings.Join(about, ", ") + ")"
	}
	return s
}

const hintNotWinRM = "check the port: WinRM listens on 5985 (HTTP) and 5986 (HTTPS); " +
	"on the node: winrm enumerate winrm/config/listener"

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>\s*([^<]{1,120})`)

// notWinRM names an answer no WinRM listener gives, nil for one it may. 401 stays with
// the authentication diagnosis; an empty 413 or 500 is Windows' own refusal.
func notWinRM(resp *httpResponse) *notWinRMError {
	body := bytes.TrimSpace(resp.body)
	ct := resp.header.Get("Content-Type")
	switch {
	case resp.status == http.StatusUnauthorized, resp.status == http.StatusServiceUnavailable:
		// 503 is HTTP.sys itself (its HTML page) when the service behind a registered
		// URL, WinRM here, is stopped or overloaded: statusHint says so.
		return nil
	case strings.Contains(strings.ToLower(ct), "soap+xml"), bytes.Contains(body, []byte("Envelope")):
		return nil
	case len(body) == 0 && resp.status != http.StatusOK && resp.status != http.StatusNotFound && resp.status != http.StatusMethodNotAllowed:
		return nil
	}
	e := &notWinRMError{status: resp.status, contentType: ct}
	if m := htmlTitle.FindSubmatch(body); m != nil {
		e.title = strings.TrimSpace(string(m[1]))
	}
	return e
}
