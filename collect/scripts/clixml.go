package scripts

import (
	"bytes"
	"encoding/xml"
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
				// ConsoleHost names the streams in lower case ("warning", "debug") and
				// "Error" capitalized; both spellings occur, so compare without case.
				switch kind := strings.ToLower(stream); kind {
				case "error", "warning", "verbose", "debug", "information":
					text := unescapeCLIXML(cur.String())
					if kind != "error" {
						text = strings.ToUpper(kind) + ": " + text
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
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+7 <= len(s) && s[i+1] == 'x' && s[i+6] == '_' {
			if n, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
				b.WriteRune(rune(n))
				i += 6
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return strings.ReplaceAll(b.String(), "\r\n", "\n")
}
