package importer_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// describePods prints pods and their events the way `kubectl describe pods` does
// (k8s.io/kubectl/pkg/describe: top-level keys padded, containers two and four spaces
// in, the Events table through a tabwriter, From as "component, host"). ok is false
// when an event is about something else than a described pod: a describe could not
// show it, so the events would not be the same evidence.
func describePods(pods []corev1.Pod, events []corev1.Event) (string, bool) {
	known := map[string]bool{}
	for _, p := range pods {
		known[p.Namespace+"/"+p.Name] = true
	}
	for _, e := range events {
		if o := e.InvolvedObject; o.Kind != "Pod" || !known[o.Namespace+"/"+o.Name] {
			return "", false
		}
	}
	var b strings.Builder
	for i, p := range pods {
		if i > 0 {
			b.WriteString("\n\n")
		}
		top := func(k, v string) { fmt.Fprintf(&b, "%-18s%s\n", k+":", v) }
		top("Name", p.Name)
		top("Namespace", p.Namespace)
		node := p.Spec.NodeName
		if p.Status.HostIP != "" {
			node += "/" + p.Status.HostIP
		}
		top("Node", node)
		labels := pairs(p.Labels, "=")
		if len(labels) == 0 {
			labels = []string{"<none>"}
		}
		top("Labels", labels[0])
		for _, l := range labels[1:] {
			fmt.Fprintf(&b, "%18s%s\n", "", l)
		}
		top("Status", string(p.Status.Phase))
		top("IP", p.Status.PodIP)
		b.WriteString("Containers:\n")
		for _, c := range p.Spec.Containers {
			fmt.Fprintf(&b, "  %s:\n    Image:          %s\n", c.Name, c.Image)
			for _, s := range p.Status.ContainerStatuses {
				if s.Name != c.Name {
					continue
				}
				fmt.Fprintf(&b, "    Container ID:   %s\n", s.ContainerID)
				switch st := s.State; {
				case st.Running != nil:
					b.WriteString("    State:          Running\n")
				case st.Waiting != nil:
					fmt.Fprintf(&b, "    State:          Waiting\n      Reason:       %s\n", st.Waiting.Reason)
				case st.Terminated != nil:
					fmt.Fprintf(&b, "    State:          Terminated\n      Reason:       %s\n      Exit Code:    %d\n", st.Terminated.Reason, st.Terminated.ExitCode)
				}
				fmt.Fprintf(&b, "    Ready:          %s\n    Restart Count:  %d\n", map[bool]string{true: "True", false: "False"}[s.Ready], s.RestartCount)
			}
		}
		var mine []corev1.Event
		for _, e := range events {
			if e.InvolvedObject.Namespace == p.Namespace && e.InvolvedObject.Name == p.Name {
				mine = append(mine, e)
			}
		}
		if len(mine) == 0 {
			b.WriteString("Events:           <none>\n")
			continue
		}
		b.WriteString("Events:\n")
		w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		fmt.Fprintln(w, "  Type\tReason\tAge\tFrom\tMessage")
		fmt.Fprintln(w, "  ----\t------\t----\t----\t-------")
		for _, e := range mine {
			age := "5m"
			if e.Count > 1 {
				age = "2m (x" + strconv.Itoa(int(e.Count)) + " over 5m)"
			}
			from := e.Source.Component
			if from == "" {
				from = e.ReportingController
			}
			if host := firstOf(e.Source.Host, e.ReportingInstance); host != "" {
				from += ", " + host
			}
			fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\n", e.Type, e.Reason, age, from, strings.TrimSpace(e.Message))
		}
		_ = w.Flush()
	}
	return b.String(), true
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// ctrImagesTable prints `ctr -n k8s.io images ls` for crictl inspecti evidence: a
// name:tag row and a sha256 row per image, under the image's digest. false when the
// evidence is docker's.
func ctrImagesTable(t *testing.T, data []byte) (string, bool) {
	imgs, err := decode.DecodeImages("images.json", data)
	if err != nil || len(imgs) == 0 || !strings.Contains(string(data), `"status"`) {
		return "", false
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 1, 8, 1, ' ', 0)
	fmt.Fprintln(w, "REF\tTYPE\tDIGEST\tSIZE\tPLATFORMS\tLABELS")
	for _, im := range imgs {
		digest := "sha256:" + strings.Repeat(strings.TrimPrefix(im.ID, "sha256:")+"0", 2)[:64]
		for _, ref := range append(append([]string{}, im.Tags...), im.ID) {
			fmt.Fprintf(w, "%s\tapplication/vnd.docker.distribution.manifest.list.v2+json\t%s\t125.5 MiB\twindows/amd64\tio.cri-containerd.image=managed\n", ref, digest)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String(), true
}

// crictlPodsTable prints `crictl pods` for crictl pods -o json evidence.
func crictlPodsTable(data []byte) (string, bool) {
	var doc struct {
		Items []struct {
			ID       string `json:"id"`
			State    string `json:"state"`
			Metadata struct {
				Name, Namespace string
				Attempt         int
			} `json:"metadata"`
		} `json:"items"`
	}
	if json.Unmarshal(data, &doc) != nil || len(doc.Items) == 0 {
		return "", false
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 20, 1, 3, ' ', 0)
	fmt.Fprintln(w, "POD ID\tCREATED\tSTATE\tNAME\tNAMESPACE\tATTEMPT\tRUNTIME")
	for _, it := range doc.Items {
		state := map[string]string{"SANDBOX_READY": "Ready", "SANDBOX_NOTREADY": "NotReady"}[it.State]
		fmt.Fprintf(w, "%s\t3 days ago\t%s\t%s\t%s\t%d\t(default)\n", it.ID[:min(13, len(it.ID))], state, it.Metadata.Name, it.Metadata.Namespace, it.Metadata.Attempt)
	}
	_ = w.Flush()
	return b.String(), true
}

// netshRoutes prints `netsh interface ipv4 show route`: on-link routes name their
// interface, the others their gateway.
func netshRoutes(routes []struct {
	DestinationPrefix, NextHop, InterfaceAlias string
	IfIndex                                    int `json:"ifIndex"`
	RouteMetric                                int
}) string {
	rows := [][]string{}
	for _, r := range routes {
		last := r.NextHop
		if last == "0.0.0.0" {
			last = r.InterfaceAlias
		}
		rows = append(rows, []string{"No", "Manual", strconv.Itoa(r.RouteMetric), r.DestinationPrefix, strconv.Itoa(r.IfIndex), last})
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "Publish\tType\tMet\tPrefix\tIdx\tGateway/Interface Name")
	fmt.Fprintln(w, "-------\t--------\t---\t------------------------\t---\t------------------------")
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	_ = w.Flush()
	return "\n" + b.String() + "\n"
}

// podsAndEvents renders the tree's pods and events as `kubectl describe pods -A`;
// false when the tree has none, or events a describe of its pods would not show.
func podsAndEvents(t *testing.T, tree fs.FS) (string, bool) {
	pb, err1 := fs.ReadFile(tree, evidence.PathPods)
	eb, err2 := fs.ReadFile(tree, evidence.PathEvents)
	if err1 != nil || err2 != nil {
		return "", false
	}
	pods, err1 := decode.Pods(evidence.PathPods, pb)
	events, err2 := decode.Events(evidence.PathEvents, eb)
	if err1 != nil || err2 != nil || len(pods) == 0 || len(events) == 0 {
		return "", false
	}
	return describePods(pods, events)
}

// routePrintDE prints routes the way a German `route print -4` does.
func routePrintDE(t *testing.T, routes []struct {
	DestinationPrefix, NextHop, InterfaceAlias string
	IfIndex                                    int `json:"ifIndex"`
	RouteMetric                                int
}) string {
	var b strings.Builder
	b.WriteString("===========================================================================\nSchnittstellenliste\n 14...00 15 5d 2b 1f 00 ......Hyper-V Virtual Ethernet Adapter #2\n" +
		"===========================================================================\n\nIPv4-Routentabelle\n" +
		"===========================================================================\nAktive Routen:\n")
	w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "     Netzwerkziel\tNetzwerkmaske\tGateway\tSchnittstelle\tMetrik\t")
	for _, r := range routes {
		p, err := netip.ParsePrefix(r.DestinationPrefix)
		if err != nil {
			t.Fatal(err)
		}
		mask := net.IP(net.CIDRMask(p.Bits(), 32)).String()
		gw := r.NextHop
		if gw == "0.0.0.0" {
			gw = "Auf Verbindung"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t10.240.0.30\t%d\t\n", p.Addr(), mask, gw, r.RouteMetric+15)
	}
	_ = w.Flush()
	b.WriteString("===========================================================================\nStändige Routen:\n  Keine\n")
	return b.String()
}

// dockerPs prints `docker ps -a --no-trunc` for docker's JSON lines; crictl pods
// (another shape) stay JSON.
func dockerPs(t *testing.T, data []byte, b *strings.Builder, c console) bool {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var rows []map[string]string
	for dec.More() {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			return false
		}
		if _, ok := row["Names"]; !ok {
			return false
		}
		s := map[string]string{}
		for k, v := range row {
			s[k] = fmt.Sprint(v)
		}
		rows = append(rows, s)
	}
	if len(rows) == 0 {
		return false
	}
	b.WriteString(c.run("docker ps -a --no-trunc"))
	w := tabwriter.NewWriter(b, 0, 1, 3, ' ', 0)
	fmt.Fprintln(w, "CONTAINER ID\tIMAGE\tCOMMAND\tCREATED\tSTATUS\tPORTS\tNAMES")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r["ID"], r["Image"], r["Command"], r["RunningFor"], r["Status"], r["Ports"], r["Names"])
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return true
}

func field(name, text string) paste.Field {
	return paste.Field{Name: name, Value: paste.ParseValue(text)}
}

// dockerImages prints `docker images` for docker image inspect evidence; crictl
// evidence (another shape) is left as JSON.
func dockerImages(t *testing.T, data []byte, b *strings.Builder, c console) bool {
	var imgs []struct {
		Id       string
		RepoTags []string
	}
	if err := json.Unmarshal(data, &imgs); err != nil || len(imgs) == 0 || imgs[0].Id == "" {
		return false
	}
	// docker's table writer: text/tabwriter, columns at least 20 wide, 3 spaces apart.
	b.WriteString(c.run("docker images"))
	w := tabwriter.NewWriter(b, 20, 1, 3, ' ', 0)
	fmt.Fprintln(w, "REPOSITORY\tTAG\tIMAGE ID\tCREATED\tSIZE")
	for _, im := range imgs {
		id := strings.TrimPrefix(im.Id, "sha256:")[:12]
		for _, tag := range im.RepoTags {
			i := strings.LastIndex(tag, ":")
			fmt.Fprintf(w, "%s\t%s\t%s\t7 days ago\t258MB\n", tag[:i], tag[i+1:], id)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return true
}
