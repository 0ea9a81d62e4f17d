package paste

import "strings"

// klogShare: a klog file starts (after its 4-line header) with a klog line; what follows
// can be anything a message printed across lines (kube-proxy's pretty-printed policies).
// A service wrapper's own first lines (nssm's, flanneld's "OnStart - ...") may come
// before it: up to three.
func (p *Parser) klogShare(lines []Line) bool {
	other := 0
	for _, l := range lines {
		switch {
		case blank(l.Text) || p.klogHeader.MatchString(l.Text):
			continue
		case p.klogLine.MatchString(p.stripLogPrefix(l.Text)):
			return true
		}
		if other++; other > 3 {
			return false
		}
	}
	return false
}

// component tells a kubelet log from a kube-proxy or flanneld log by the source files
// its klog lines name (proxier.go, kubelet_node_status.go, vxlan_windows.go) or the unit
// journald named, and an Antrea agent's by its name; the messages alone would mislead
// (a kubelet logs kube-proxy's pod by name).
func (p *Parser) component(lines []Line) string {
	proxy, kubelet, antrea, flannel := 0, 0, 0, 0
	for _, l := range lines {
		switch strings.ToLower(l.Unit) {
		case "kubelet":
			kubelet += 2
		case "kube-proxy":
			proxy += 2
		case "flanneld":
			flannel += 2
		}
		low := strings.ToLower(l.Text)
		if strings.Contains(low, "antrea") {
			antrea++
		}
		if strings.Contains(low, "subnet manager") || strings.Contains(low, "flannel") {
			flannel++
		}
		m := p.klogFile.FindStringSubmatch(p.stripLogPrefix(l.Text))
		switch {
		case m == nil:
		case p.proxyFiles.MatchString(m[1]):
			proxy++
		case p.kubeletFile.MatchString(m[1]):
			kubelet++
		case p.flannelFiles.MatchString(m[1]):
			flannel++
		}
	}
	switch {
	case antrea > 0 && antrea >= proxy && antrea >= kubelet:
		return "antrea-agent"
	case flannel > proxy && flannel > kubelet:
		return "flanneld"
	case proxy > kubelet:
		return "kube-proxy"
	case kubelet > proxy:
		return "kubelet"
	}
	return ""
}

// stripLogPrefix drops what a relay put before a log line: an RFC 3339 timestamp
// (kubectl logs --timestamps, a log shipper).
func (p *Parser) stripLogPrefix(s string) string {
	if loc := p.timestampLn.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	return s
}

// LogText is a log block's text with relay prefixes stripped and lines a console copy
// joined split again, one log line per line.
func (p *Parser) LogText(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		t := p.stripLogPrefix(strings.TrimRight(l.Text, " "))
		for {
			loc := p.joinedKlog.FindStringIndex(t)
			if loc == nil {
				break
			}
			b.WriteString(t[:loc[0]] + "\n")
			t = strings.TrimLeft(t[loc[0]:], " \t")
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return strings.TrimLeft(b.String(), "\n")
}
