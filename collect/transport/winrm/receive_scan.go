package winrm

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
)

// scanReceive reads a Receive response the way Windows writes one, without tokenizing:
// each <p:Stream ...>base64</p:Stream> in order, then CommandState and ExitCode.
//
// The stdout chunks are decoded in place: each into the reply's own bytes, behind the
// ones before it (decoded text is shorter than its base64, and the decoder reads each
// quantum before it writes the shorter result; TestDecodeInPlace holds it to that), so
// a sweep's output costs no allocation beyond the reply itself, which stdout then is.
// The reply's shape is checked before anything is written: ok is false when it is not
// plainly Windows' (the caller then tokenizes it, intact). A chunk that is not base64
// is an error once decoding began. out changes only when the whole reply was read.
func scanReceive(reply []byte, out *output) (done bool, code int, ok bool, err error) {
	body := bytes.TrimSpace(reply)
	if !bytes.HasSuffix(body, []byte("Envelope>")) || bytes.IndexByte(body, '&') >= 0 ||
		bytes.Contains(body, []byte("<![CDATA[")) || bytes.Contains(body, []byte("<!--")) {
		return false, 0, false, nil
	}
	type chunk struct {
		stderr bool
		text   []byte // the base64, inside body
	}
	var first [16]chunk
	chunks := first[:0]
	rest := body
	for {
		attrs, inner, after, found := nextElement(rest, "Stream")
		if !found {
			break
		}
		c := chunk{text: bytes.TrimSpace(inner)}
		switch string(attrValue(attrs, "Name")) {
		case "stdout":
		case "stderr":
			c.stderr = true
		default:
			return false, 0, false, nil
		}
		chunks = append(chunks, c)
		rest = after
	}
	if attrs, inner, _, found := nextElement(rest, "CommandState"); found {
		done = bytes.HasSuffix(attrValue(attrs, "State"), []byte("/CommandState/Done"))
		if _, exit, _, hasExit := nextElement(inner, "ExitCode"); hasExit {
			n, err := strconv.Atoi(string(bytes.TrimSpace(exit)))
			if err != nil {
				return false, 0, false, nil
			}
			code = n
		}
	}
	w := 0 // body[:w] holds the stdout decoded so far
	stderr := out.stderr
	for _, c := range chunks {
		var err error
		if c.stderr {
			stderr, err = base64.StdEncoding.AppendDecode(stderr, c.text)
		} else {
			var n int
			n, err = base64.StdEncoding.Decode(body[w:], c.text)
			w += n
		}
		if err != nil {
			name := "stdout"
			if c.stderr {
				name = "stderr"
			}
			return false, 0, false, fmt.Errorf("a %s chunk of the reply is damaged (not base64): %w", name, err)
		}
	}
	out.stderr = stderr
	if len(out.stdout) == 0 {
		out.stdout = body[:w:w] // a later reply's output is appended to a copy
	} else {
		out.stdout = append(out.stdout, body[:w]...)
	}
	return done, code, true, nil
}

// nextElement finds the first element with the local name in s, whatever its prefix, and
// returns its attributes, its content up to its own end tag (for a self-closing element:
// ""), and what follows it.
func nextElement(s []byte, local string) (attrs, inner, after []byte, found bool) {
	for off := 0; ; {
		i := bytes.IndexByte(s[off:], '<')
		if i < 0 {
			return nil, nil, nil, false
		}
		i += off
		j := bytes.IndexByte(s[i:], '>')
		if j < 0 {
			return nil, nil, nil, false
		}
		j += i
		tag := s[i+1 : j]
		off = j + 1
		if len(tag) == 0 || tag[0] == '/' || tag[0] == '?' || tag[0] == '!' {
			continue
		}
		nameEnd := bytes.IndexAny(tag, " \t\r\n/")
		if nameEnd < 0 {
			nameEnd = len(tag)
		}
		if string(localName(tag[:nameEnd])) != local {
			continue
		}
		attrs = tag[nameEnd:]
		if bytes.HasSuffix(attrs, []byte("/")) {
			return attrs, nil, s[j+1:], true
		}
		end, endLen := closeTag(s[j+1:], local)
		if end < 0 {
			return nil, nil, nil, false
		}
		return attrs, s[j+1 : j+1+end], s[j+1+end+endLen:], true
	}
}

// closeTag finds the first </local> or </prefix:local> in s: its index and length.
func closeTag(s []byte, local string) (int, int) {
	for off := 0; ; {
		i := bytes.Index(s[off:], []byte("</"))
		if i < 0 {
			return -1, 0
		}
		i += off
		j := bytes.IndexByte(s[i:], '>')
		if j < 0 {
			return -1, 0
		}
		if string(localName(bytes.TrimSpace(s[i+2:i+j]))) == local {
			return i, j + 1
		}
		off = i + j + 1
	}
}

func localName(qname []byte) []byte {
	if k := bytes.IndexByte(qname, ':'); k >= 0 {
		return qname[k+1:]
	}
	return qname
}

// attrValue reads name="value" (or single quotes) from a start tag's attribute text.
func attrValue(attrs []byte, name string) []byte {
	for rest := attrs; ; {
		i := bytes.Index(rest, []byte(name+"="))
		if i < 0 {
			return nil
		}
		if i > 0 && bytes.IndexByte([]byte(" \t\r\n"), rest[i-1]) < 0 {
			rest = rest[i+len(name)+1:]
			continue
		}
		v := rest[i+len(name)+1:]
		if len(v) == 0 || (v[0] != '"' && v[0] != '\'') {
			return nil
		}
		end := bytes.IndexByte(v[1:], v[0])
		if end < 0 {
			return nil
		}
		return v[1 : 1+end]
	}
}

// elementText is the text of the first element with the local name, read without an XML
// tree (masterzen's parsers build an XPath tree per reply, a tenth of a sweep's client
// CPU); replies that are not plain text there go to the masterzen parser.
func elementText(reply []byte, local string, slow func(string) (string, error)) (string, error) {
	if _, inner, _, ok := nextElement(reply, local); ok && !bytes.ContainsAny(inner, "<&") {
		if v := bytes.TrimSpace(inner); len(v) > 0 {
			return string(v), nil
		}
	}
	return slow(string(reply))
}
