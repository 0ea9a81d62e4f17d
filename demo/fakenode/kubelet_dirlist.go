package fakenode

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// dirEntry is one name in a folder the fake kubelet lists.
type dirEntry struct {
	name string
	dir  bool
}

// logFolder is what C:\var\log holds on the fake node: the folders the kubelet itself
// creates there (pods\ and containers\, its podLogsDirectory and the symlinks next to it,
// pkg/kubelet/kuberuntime/kuberuntime_manager.go) and one folder per service log the
// scenario declares (C:\var\log\SERVICE\SERVICE.log, where the Windows start scripts
// point klog's --log-file).
func (k *Kubelet) logFolder() []dirEntry {
	entries := []dirEntry{{"containers", true}, {"pods", true}}
	for name := range k.opts.Logs {
		entries = append(entries, dirEntry{name, true})
	}
	return entries
}

// htmlEscape is net/http's htmlReplacer (src/net/http/server.go).
var htmlEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

// serveDirList prints a folder exactly as net/http's FileServer lists one (dirList in
// src/net/http/fs.go, Go 1.21 and later, which kubelets since v1.29 are built with):
//
//	w.Header().Set("Content-Type", "text/html; charset=utf-8")
//	fmt.Fprintf(w, "<!doctype html>\n")
//	fmt.Fprintf(w, "<meta name=\"viewport\" content=\"width=device-width\">\n")
//	fmt.Fprintf(w, "<pre>\n")
//	... for each entry, sorted by name, a folder with "/" appended:
//	url := url.URL{Path: name}
//	fmt.Fprintf(w, "<a href=\"%s\">%s</a>\n", url.String(), htmlReplacer.Replace(name))
//	fmt.Fprintf(w, "</pre>\n")
func serveDirList(w http.ResponseWriter, entries []dirEntry) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html>\n")
	fmt.Fprintf(w, "<meta name=\"viewport\" content=\"width=device-width\">\n")
	fmt.Fprintf(w, "<pre>\n")
	for _, e := range entries {
		name := e.name
		if e.dir {
			name += "/"
		}
		u := url.URL{Path: name}
		fmt.Fprintf(w, "<a href=\"%s\">%s</a>\n", u.String(), htmlEscape.Replace(name))
	}
	fmt.Fprintf(w, "</pre>\n")
}
