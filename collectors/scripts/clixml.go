package scripts

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
)

const clixmlHeader = "#< CLIXML"

// DecodeCLIXML turns PowerShell's serialized error stream (what powershell.exe writes to a
// redirected stderr: "#< CLIXML" then <Objs>) into readable text. Text that is not CLIXML
// is returned unchanged; a damaged document falls back to the raw text so nothing is lost.
func DecodeCLIXML(b []byte) string {
	s := string(b)
	i := strings.Index(s, clixmlHeader)
	if i < 0 {
		return s
	}
	before := strings.TrimSpace(s[:i])
	rest := s[i+len(clixmlHeader):]
	var lines []string
	if before != "" {
		lines = append(lines, before)
	}
	dec := xml.NewDecoder(strings.NewReader(rest))
	var stream string
	var inS bool
	var cur bytes.Buffer
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "S" {
				inS, stream = true, ""
				cur.Reset()
				for _, a := range t.Attr {
					if a.Name.Local == "S" {
						stream = a.Value
					}
				}
			}
		case xml.CharData:
			if inS {
				cur.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local == "S" && inS {
				inS = false
				if stream == "Error" || stream == "Warning" || stream == "Verbose" || stream == "Debug" {
					text := unescapeCLIXML(cur.String())
					if stream != "Error" {
						text = strings.ToUpper(stream) + ": " + text
					}
					lines = append(lines, text)
				}
			}
		}
	}
	if len(lines) == 0 && before == "" {
		if strings.Contains(rest, "<Objs") && !strings.Contains(rest, "</Objs>") {
			return s // truncated: keep the raw text
		}
		return ""
	}
	return strings.TrimRight(strings.Join(lines, ""), "\r\n")
}

// unescapeCLIXML decodes the _xHHHH_ escapes PowerShell uses for control characters.
func unescapeCLIXML(s string) string {
	xEscape := regexp.MustCompile(`_x([0-9A-Fa-f]{4})_`)
	s = xEscape.ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.ParseUint(m[2:6], 16, 16)
		if err != nil {
			return m
		}
		return string(rune(n))
	})
	return strings.ReplaceAll(s, "\r\n", "\n")
}
