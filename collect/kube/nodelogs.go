package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// Node log query (KEP 2258): GET /api/v1/nodes/NODE/proxy/logs/?query=SERVICE, served by
// the kubelet when its NodeLogQuery feature gate and enableSystemLogQuery are on
// (pkg/kubelet/kubelet_server_journal*.go). On Windows a service logging to the
// Application event log is read with Get-WinEvent; one that does not is looked up as a file
// under C:\var\log (SERVICE, SERVICE.log, SERVICE\SERVICE.log), and then options such as
// sinceTime are refused in the body, so the query is made again without them.
const (
	kubeletOptionsRefused = "options present and query resolved to log files"
	kubeletLogNotFound    = "log not found for "
	// DefaultNodeLogMax caps one log from node log query, as --max-log caps the sweep's.
	DefaultNodeLogMax = 1 << 20
)

// NodeLogServices maps the log evidence files to the service node log query names.
func NodeLogServices() map[string]string {
	return map[string]string{
		evidence.FileKubeletLog: "kubelet", evidence.FileKubeProxyLog: "kube-proxy",
		evidence.FileLogKubelet: "kubelet", evidence.FileLogKubeProxy: "kube-proxy",
		evidence.FileLogRuntime: "containerd", evidence.FileLogFlanneld: "flanneld",
	}
}

// NodeLogOptions bound one query.
type NodeLogOptions struct {
	Since    time.Duration // 0: the whole log
	MaxBytes int           // the log's tail, whole lines; 0: DefaultNodeLogMax
}

// NodeLog is one log from node log query and where it came from.
type NodeLog struct {
	Data   []byte
	Source string // the request, "GET /api/v1/nodes/N/proxy/logs/?query=kubelet"
	Note   string // how the options were applied
}

// ErrNoNodeLog is a kubelet that has no such log or does not offer node log query.
var ErrNoNodeLog = errors.New("no log from node log query")

// NodeLog asks the node's kubelet, through the API server, for a service's log.
func (c *Client) NodeLog(ctx context.Context, node, service string, o NodeLogOptions) (NodeLog, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultNodeLogMax
	}
	params := [][2]string{{"query", service}}
	if o.Since > 0 {
		params = append(params, [2]string{"sinceTime", time.Now().Add(-o.Since).UTC().Format(time.RFC3339)})
	}
	body, src, err := c.queryLogs(ctx, node, params)
	var note string
	if err == nil && bytes.Contains(body, []byte(kubeletOptionsRefused)) {
		note = "the kubelet reads this log from a file and takes no sinceTime: its tail is kept instead"
		body, src, err = c.queryLogs(ctx, node, params[:1])
	}
	if err != nil {
		return NodeLog{}, err
	}
	text := strings.TrimSpace(string(body))
	switch {
	case strings.HasPrefix(text, kubeletLogNotFound):
		return NodeLog{}, fmt.Errorf("%w: the kubelet of %s says %q", ErrNoNodeLog, node, text)
	case isDirList(text):
		return NodeLog{}, fmt.Errorf("%w: node log query is off on %s: the kubelet listed its log folder instead "+
			"(turn on the kubelet feature gate NodeLogQuery and enableSystemLogQuery: true in its config)", ErrNoNodeLog, node)
	}
	data, cut := tail(body, o.MaxBytes)
	if cut {
		note = strings.TrimPrefix(note+fmt.Sprintf("; cut to its last %d bytes", o.MaxBytes), "; ")
	}
	return NodeLog{Data: data, Source: src, Note: note}, nil
}

func (c *Client) queryLogs(ctx context.Context, node string, params [][2]string) ([]byte, string, error) {
	path := "/api/v1/nodes/" + node + "/proxy/logs/"
	req := c.cs.CoreV1().RESTClient().Get().AbsPath(path)
	var q []string
	for _, p := range params {
		req = req.Param(p[0], p[1])
		q = append(q, p[0]+"="+p[1])
	}
	src := "GET " + path + "?" + strings.Join(q, "&")
	var status int
	body, err := req.Do(ctx).StatusCode(&status).Raw()
	switch {
	case err == nil:
		return body, src, nil
	case status == http.StatusMethodNotAllowed || apierrors.IsMethodNotSupported(err):
		// enableSystemLogHandler false: "logs endpoint is disabled." (pkg/kubelet/server/server.go).
		return nil, src, fmt.Errorf("%w: the kubelet of %s answers %d to /logs/ (enableSystemLogHandler is off in its config)", ErrNoNodeLog, node, status)
	case fromKubelet(err, http.StatusNotFound):
		// The handler is on but node log query is not, and http.FileServer finds no
		// C:\var\log to list: "404 page not found" (src/net/http/fs.go serveFile).
		return nil, src, fmt.Errorf("%w: the kubelet of %s answers 404 to /logs/: its log folder (C:\\var\\log) is missing "+
			"and node log query is off (kubelet feature gate NodeLogQuery, enableSystemLogQuery)", ErrNoNodeLog, node)
	case apierrors.IsForbidden(err):
		return nil, src, fmt.Errorf("%w (node log query needs get on nodes/proxy: the wintroubleshoot-node-logs role of docs/rbac.yaml)",
			c.fail(ctx, err, "get", "nodes/proxy", "", node))
	}
	return nil, src, c.fail(ctx, err, "get", "nodes/proxy", "", node)
}

// fromKubelet says an error is the kubelet's answer with that status code, passed
// through the API server's proxy: its body was not a Status, so client-go keeps it as an
// UnexpectedServerResponse cause ("404 page not found" from net/http), unlike the API
// server's own 404 for a Node that does not exist. (StatusCode() is not filled in for
// such an answer; the Status's Code is.)
func fromKubelet(err error, code int32) bool {
	var se apierrors.APIStatus
	if !errors.As(err, &se) || se.Status().Code != code || se.Status().Details == nil {
		return false
	}
	for _, c := range se.Status().Details.Causes {
		if c.Type == metav1.CauseTypeUnexpectedServerResponse {
			return true
		}
	}
	return false
}

// isDirList says a body is net/http's listing of a folder (dirList in src/net/http/fs.go):
// since Go 1.21 it starts "<!doctype html>", then a <meta name="viewport"> line, then
// "<pre>" with one <a href> per entry; older kubelets printed "<pre>" first. A log's
// first line is neither.
func isDirList(text string) bool {
	if rest, ok := strings.CutPrefix(text, "<!doctype html>"); ok {
		rest = strings.TrimLeft(rest, "\r\n")
		if rest, ok = strings.CutPrefix(rest, `<meta name="viewport" content="width=device-width">`); ok {
			text = strings.TrimLeft(rest, "\r\n")
		}
	}
	return strings.HasPrefix(text, "<pre>\n") && strings.HasSuffix(text, "</pre>") &&
		(strings.Count(text, "\n") == 1 || strings.Contains(text, "\n<a href=\""))
}

// tail is b's last max bytes, from a line start.
func tail(b []byte, max int) ([]byte, bool) {
	if len(b) <= max {
		return b, false
	}
	b = b[len(b)-max:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b, true
}

// FillNodeLogs takes, for each log file among names that the node's sweep did not give
// (it has a .err companion or is absent), the log from node log query instead. The file
// then carries a .note saying where it came from; a log the kubelet cannot give leaves the
// sweep's .err as it was. It returns one line per log it could not fill, for the caller to
// show or drop.
//
// It asks only after Collect listed the cluster's nodes, and only about a node in that
// list: with no cluster answering (no kubeconfig, client-go's localhost:8080, a server
// down) every node would otherwise wait on the rate limiter for requests bound to fail.
func (c *Client) FillNodeLogs(ctx context.Context, t *evidence.Tree, node string, names []string, o NodeLogOptions) []string {
	services := NodeLogServices()
	ev := t.Evidence()
	prefix := "nodes/" + node + "/"
	var missed []string
	var notAsked string
	switch listed := c.listed.Load(); {
	case listed == nil:
		notAsked = "not asked of the cluster: its nodes were not listed"
	case !(*listed)[node]:
		notAsked = "not asked of the cluster: it has no node " + node
	}
	for _, name := range names {
		service, ok := services[name]
		if !ok {
			continue
		}
		errText, hadErr := ev.Read(prefix + name + evidence.ErrSuffix)
		if _, err := ev.Read(prefix + name); err == nil && hadErr != nil {
			continue // the node gave it
		}
		if notAsked != "" {
			missed = append(missed, name+": "+notAsked)
			continue
		}
		lg, err := c.NodeLog(ctx, node, service, o)
		if err != nil {
			missed = append(missed, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		why := "the node's sweep gave none"
		if hadErr == nil {
			why += " (" + firstLine(string(errText)) + ")"
		}
		note := "from node log query: " + lg.Source + "; " + why
		if lg.Note != "" {
			note += "; " + lg.Note
		}
		t.Delete(prefix + name + evidence.ErrSuffix)
		t.Put(prefix+name, lg.Data)
		t.Put(prefix+name+".note", []byte(note+"\n"))
	}
	return missed
}

// firstLine is the first line of an .err file's text, after its "exit N" line.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if head, rest, ok := strings.Cut(s, "\n"); ok && strings.HasPrefix(head, "exit ") {
		s = strings.TrimSpace(rest)
	}
	s, _, _ = strings.Cut(s, "\n")
	return s
}
