package winrm

import (
	"encoding/base64"
	"io"
	"strconv"
	"strings"
)

// scanReceive reads a Receive response the way Windows writes one, without tokenizing:
// each <p:Stream ...>base64</p:Stream> in order, then CommandState and ExitCode. ok is false
// when the reply is not plainly of that shape (the caller then tokenizes it); output is
// written only once the whole reply has been read, so a fallback never duplicates it.
func scanReceive(reply string, stdout, stderr io.Writer) (done bool, code int, ok bool) {
	body := strings.TrimSpace(reply)
	if !strings.HasSuffix(body, "Envelope>") || strings.ContainsAny(body, "&") ||
		strings.Contains(body, "<![CDATA[") || strings.Contains(body, "<!--") {
		return false, 0, false
	}
	type chunk struct {
		err  bool
		data []byte
	}
	var chunks []chunk
	rest := body
	for {
		attrs, inner, after, found := nextElement(rest, "Stream")
		if !found {
			break
		}
		name := attrValue(attrs, "Name")
		if name != "stdout" && name != "stderr" {
			return false, 0, false
		}
		data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(inner))
		if err != nil {
			return false, 0, false // the tokenizer reports the damage with its context
		}
		chunks = append(chunks, chunk{name == "stderr", data})
		rest = after
	}
	if attrs, inner, _, found := nextElement(rest, "CommandState"); found {
		done = strings.HasSuffix(attrValue(attrs, "State"), "/CommandState/Done")
		if _, exit, _, hasExit := nextElement(inner, "ExitCode"); hasExit {
			n, err := strconv.Atoi(strings.TrimSpace(exit))
			if err != nil {
				return false, 0, false
			}
			code = n
		}
	}
	for _, c := range chunks {
		w := stdout
		if c.err {
			w = stderr
		}
		if _, err := w.Write(c.data); err != nil {
			return false, 0, false
		}
	}
	return done, code, true
}

// nextElement finds the first element with the local name in s, whatever its prefix, and
// returns its attributes, its content up to its own end tag (for a self-closing element:
// ""), and what follows it.
func nextElement(s, local string) (attrs, inner, after string, found bool) {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '<')
		if i < 0 {
			return "", "", "", false
		}
		i += off
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return "", "", "", false
		}
		j += i
		tag := s[i+1 : j]
		off = j + 1
		if tag == "" || tag[0] == '/' || tag[0] == '?' || tag[0] == '!' {
			continue
		}
		nameEnd := strings.IndexAny(tag, " \t\r\n/")
		if nameEnd < 0 {
			nameEnd = len(tag)
		}
		if localName(tag[:nameEnd]) != local {
			continue
		}
		attrs = tag[nameEnd:]
		if strings.HasSuffix(attrs, "/") {
			return attrs, "", s[j+1:], true
		}
		end, endLen := closeTag(s[j+1:], local)
		if end < 0 {
			return "", "", "", false
		}
		return attrs, s[j+1 : j+1+end], s[j+1+end+endLen:], true
	}
}

// closeTag finds the first </local> or </prefix:local> in s: its index and length.
func closeTag(s, local string) (int, int) {
	for off := 0; ; {
		i := strings.Index(s[off:], "</")
		if i < 0 {
			return -1, 0
		}
		i += off
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return -1, 0
		}
		if localName(strings.TrimSpace(s[i+2:i+j])) == local {
			return i, j + 1
		}
		off = i + j + 1
	}
}

func localName(qname string) string {
	if k := strings.IndexByte(qname, ':'); k >= 0 {
		return qname[k+1:]
	}
	return qname
}

// attrValue reads name="value" (or single quotes) from a start tag's attribute text.
func attrValue(attrs, name string) string {
	for rest := attrs; ; {
		i := strings.Index(rest, name+"=")
		if i < 0 {
			return ""
		}
		if i > 0 && !strings.ContainsRune(" \t\r\n", rune(rest[i-1])) {
			rest = rest[i+len(name)+1:]
			continue
		}
		v := rest[i+len(name)+1:]
		if v == "" || (v[0] != '"' && v[0] != '\'') {
			return ""
		}
		end := strings.IndexByte(v[1:], v[0])
		if end < 0 {
			return ""
		}
		return v[1 : 1+end]
	}
}

// elementText is the text of the first element with the local name, read without an XML
// tree (masterzen's parsers build an XPath tree per reply, a tenth of a sweep's client
// CPU); replies that are not plain text there go to the masterzen parser.
func elementText(reply, local string, slow func(string) (string, error)) (string, error) {
	if _, inner, _, ok := nextElement(reply, local); ok && !strings.ContainsAny(inner, "<&") {
		if v := strings.TrimSpace(inner); v != "" {
			return v, nil
		}
	}
	return slow(reply)
}
