package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// JUnit XML for CI: one <testsuite> per node, one <testcase> per finding. The mapping
// is chosen so CI fails exactly where the headless run would with the default --fail-on:
// fail is a <failure>, error an <error>, skip <skipped/>, and warn a passing case whose
// text is in <system-out> (warnings should be seen, not break the build).

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut *junitProblem `xml:"system-out,omitempty"`
}

// junitProblem is a <failure>, <error>, <skipped> or <system-out> element.
type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// MarshalXML writes the body as a CharData token because encoding/xml writes a struct's
// chardata field with every newline as "&#xA;", unreadable when someone opens the file.
// Both paths escape the same way otherwise, including replacing characters XML cannot
// hold with U+FFFD.
func (p junitProblem) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	for _, a := range [][2]string{{"message", p.Message}, {"type", p.Type}} {
		if a[1] != "" {
			start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: a[0]}, Value: a[1]})
		}
	}
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	if p.Body != "" {
		if err := e.EncodeToken(xml.CharData(p.Body)); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}

func writeJUnit(w *bufio.Writer, meta Meta, sorted []probes.Finding, _ Options) error {
	root := junitSuites{Name: toolName(meta)}
	var props []junitProperty
	for _, kv := range metaParts(meta) {
		if kv[0] != "time" { // time goes in the standard timestamp attribute
			props = append(props, junitProperty{Name: kv[0], Value: oneLine(kv[1])})
		}
	}
	stamp := ""
	if !meta.Time.IsZero() {
		// JUnit's timestamp is xs:dateTime without a zone in the common schema: use UTC.
		stamp = meta.Time.UTC().Format("2006-01-02T15:04:05")
	}

	graph := probes.NewGraph(sorted)
	for _, g := range groupByNode(sorted) {
		label := oneLine(NodeLabel(g.node))
		suite := junitSuite{Name: label, Timestamp: stamp, Properties: props}
		seen := map[string]int{}
		for _, f := range g.findings {
			// CI tools key results by classname+name; a probe reporting twice on one
			// node would otherwise merge into one result and hide the second.
			id := oneLine(f.Probe)
			seen[id]++
			name := id
			if n := seen[id]; n > 1 {
				name = fmt.Sprintf("%s #%d", id, n)
			}
			tc := junitCase{Classname: "wintroubleshoot." + label, Name: name}
			summary := oneLine(f.Summary)
			switch f.Status {
			case probes.Fail:
				tc.Failure = &junitProblem{Message: summary, Type: "fail", Body: junitBody(graph, f)}
				suite.Failures++
			case probes.Error:
				tc.Error = &junitProblem{Message: summary, Type: "error", Body: junitBody(graph, f)}
				suite.Errors++
			case probes.Skip:
				tc.Skipped = &junitProblem{Message: summary}
				suite.Skipped++
			case probes.Warn:
				tc.SystemOut = &junitProblem{Body: "warn: " + summary + "\n" + junitBody(graph, f)}
			}
			suite.Cases = append(suite.Cases, tc)
		}
		suite.Tests = len(suite.Cases)
		root.Tests += suite.Tests
		root.Failures += suite.Failures
		root.Errors += suite.Errors
		root.Skipped += suite.Skipped
		root.Suites = append(root.Suites, suite)
	}

	if _, err := w.WriteString(xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := w.WriteString("\n")
	return err
}

// junitBody is the uncoloured text report body (cause, details, evidence, fix). It has gone
// through clean, and encoding/xml replaces anything XML cannot hold (U+FFFE, …) with
// U+FFFD, so the document stays well-formed whatever a node printed.
func junitBody(g probes.Graph, f probes.Finding) string {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	writeCauseLines(bw, g, f, "", painter(false)) // CI shows what to fix first, too
	writeFindingBody(bw, f, "", painter(false))
	_ = bw.Flush() // a bytes.Buffer does not fail
	return strings.TrimRight(buf.String(), "\n")
}
