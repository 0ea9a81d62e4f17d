package winrm

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// output is what a command printed so far, as the Receives append it.
type output struct{ stdout, stderr []byte }

// parseReceive reads a Receive response: the stdout and stderr chunks (base64) in order
// and, once the command is done, its exit code. It replaces masterzen's
// ParseSlurpOutputErrResponse for two reasons: that one skips chunks whose base64 is
// damaged (evidence would silently lose bytes), and it builds an XPath tree per reply,
// which was the largest client-side cost of sweeping a fleet.
//
// The usual reply (Windows' and the fake node's: plain base64 in Stream elements) is cut
// apart without an XML tokenizer, which read the ~80 KB of base64 a byte at a time;
// anything unusual (entities, CDATA, comments, a cut reply) goes through encoding/xml.
//
// reply is overwritten (the scan decodes in place).
func parseReceive(reply []byte, out *output) (done bool, code int, err error) {
	if done, code, ok, err := scanReceive(reply, out); ok || err != nil {
		return done, code, err
	}
	return tokenizeReceive(reply, out)
}

// tokenizeReceive is parseReceive with encoding/xml: slower, and exact on any XML.
func tokenizeReceive(reply []byte, out *output) (done bool, code int, err error) {
	dec := xml.NewDecoder(bytes.NewReader(reply))
	var stream string // "stdout" or "stderr" while inside a Stream element
	var inExit bool
	var depth int // RawToken does not check that elements close, so count them
	var text strings.Builder
	for {
		tok, err := dec.RawToken() // no namespace resolution needed: local names suffice
		if errors.Is(err, io.EOF) {
			if depth != 0 {
				return false, 0, errors.New("the Receive response was cut short")
			}
			return done, code, nil
		}
		if err != nil {
			return false, 0, fmt.Errorf("the Receive response is not valid XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "Stream":
				stream, inExit = attr(t, "Name"), false
				text.Reset()
			case "CommandState":
				done = done || strings.HasSuffix(attr(t, "State"), "/CommandState/Done")
			case "ExitCode":
				inExit, stream = true, ""
				text.Reset()
			}
		case xml.CharData:
			if stream != "" || inExit {
				text.Write(t)
			}
		case xml.EndElement:
			depth--
			switch {
			case t.Name.Local == "Stream" && stream != "":
				b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text.String()))
				if err != nil {
					return false, 0, fmt.Errorf("a %s chunk of the reply is damaged (not base64): %w", stream, err)
				}
				if stream == "stderr" {
					out.stderr = append(out.stderr, b...)
				} else {
					out.stdout = append(out.stdout, b...)
				}
				stream = ""
			case t.Name.Local == "ExitCode" && inExit:
				if code, err = strconv.Atoi(strings.TrimSpace(text.String())); err != nil {
					return false, 0, fmt.Errorf("exit code %q is not a number", text.String())
				}
				inExit = false
			}
		}
	}
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
