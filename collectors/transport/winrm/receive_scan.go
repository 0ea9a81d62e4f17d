package winrm

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strconv"
)

// scanReceive reads a Receive response the way Windows writes one, without tokenizing:
// each <p:Stream ...>base64</p:Stream> in order, then CommandState and ExitCode. Each
// chunk is decoded straight onto the end of out's stdout or stderr, with no copy of the
// reply or of the chunk between. ok is false when the reply is not plainly of that shape
// (the caller then tokenizes it); out is then as it was, so a fallback never duplicates.
func scanReceive(reply []byte, out *output) (done bool, code int, ok bool) {
	body := bytes.TrimSpace(reply)
	if !bytes.HasSuffix(body, []byte("Envelope>")) || bytes.IndexByte(body, '&') >= 0 ||
		bytes.Contains(body, []byte("<![CDATA[")) || bytes.Contains(body, []byte("<!--")) {
		return false, 0, false
	}
	// Room for the whole reply decoded, once: stdout is nearly all of it, and growing
	// chunk by chunk copied a sweep's output several times over.
	out.stdout = slices.Grow(out.stdout, base64.StdEncoding.DecodedLen(len(body)))
	outLen, errLen := len(out.stdout), len(out.stderr)
	undo := func() (bool, int, bool) {
		out.stdout, out.stderr = out.stdout[:outLen], out.stderr[:errLen]
		return false, 0, false
	}
	rest := body
	for {
		attrs, inner, after, found := nextElement(rest, "Stream")
		if !found {
			break
		}
		dst := &out.stdout
		switch string(attrValue(attrs, "Name")) {
		case "stdout":
		case "stderr":
			dst = &out.stderr
		default:
			return undo()
		}
		var err error
		if *dst, err = base64.StdEncoding.AppendDecode(*dst, bytes.TrimSpace(inner)); err != nil {
			return undo() // the tokenizer reports the damage with its context
		}
		rest = after
	}
	if attrs, inner, _, found := nextElement(rest, "CommandState"); found {
		done = bytes.HasSuffix(attrValue(attrs, "State"), []byte("/CommandState/Done"))
		if _, exit, _, hasExit := nextElement(inner, "ExitCode"); hasExit {
			n, err := strconv.Atoi(string(bytes.TrimSpace(exit)))
			if err != nil {
				return undo()
			}
			code = n
		}
	}
	return done, code, true
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
	if _, inner, _, ok := nextElement(reply, local); ok && bytes.IndexAny(inner, "<&") < 0 {
		if v := bytes.TrimSpace(inner); len(v) > 0 {
			return string(v), nil
		}
	}
	return slow(string(reply))
}
