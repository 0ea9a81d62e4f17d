package redact

import (
	"bytes"
	"io"
)

// maxHold bounds the output held back while it is unknown whether an object is a Secret;
// past it the object is treated as one (fail closed).
const maxHold = 8 << 20

// maxNesting bounds the objects tracked at once; deeper text starts afresh.
const maxNesting = 512

// secretJSON is a streaming filter over JSON text that replaces the values of
// Kubernetes Secrets: every string in data and stringData, and the
// kubectl.kubernetes.io/last-applied-configuration annotation (a copy of the whole
// Secret). It is a byte-level scanner, not a parser, so formatting survives and memory
// stays flat. Text that is not JSON passes through unchanged.
//
// In text mode (logs, reports) JSON is looked for inside other text: a raw newline
// inside a string cannot be JSON, so it ends whatever was being tracked and the scanner
// starts afresh, which keeps a stray quote in a log line from blinding it for the rest
// of the file.
//
// kubectl prints keys sorted, so "data" comes before "kind": when a data value turns
// up in an object whose kind is not yet known, the output is held back twice (as is,
// and redacted) until the kind arrives or the object closes. An object with no kind
// (typed List items) is a Secret when it has a top-level "type", as Secrets do and
// ConfigMaps do not.
type secretJSON struct {
	w      io.Writer
	counts map[string]int
	stack  []jframe

	inStr, esc bool
	role       strRole
	strLen     int
	capture    []byte // a key, a kind, or the start of a secret value

	hold      int // stack index of the undecided object whose output is held, or -1
	raw, red  []byte
	heldCount int
	out       []byte
	text      bool
}

type jframe struct {
	obj       bool
	expectKey bool
	key       string
	kind      string
	hasType   bool
	decided   int8 // 0 unknown, 1 Secret, -1 not a Secret
}

type strRole int8

const (
	roleOther  strRole = iota
	roleKey            // an object key
	roleKind           // the value of "kind"
	roleType           // the value of "type"
	roleSecret         // a Secret value, redacted as it streams
	roleHeld           // a value of an undecided object: raw and redacted copies held
)

func newSecretJSON(w io.Writer, counts map[string]int, text bool) *secretJSON {
	return &secretJSON{w: w, counts: counts, hold: -1, text: text}
}

// reset drops what was being tracked: the text around it was not JSON after all. A
// Secret value cut off is replaced all the same; a held object is released as its
// evidence so far says.
func (s *secretJSON) reset() {
	switch {
	case s.role == roleSecret && s.strLen > 0:
		s.emitBoth(Replacement)
		s.counts[RuleSecretData]++
	case s.role == roleHeld && s.strLen > 0:
		s.red = append(s.red, Replacement...)
		s.heldCount++
	}
	if s.hold >= 0 {
		f := s.stack[s.hold]
		s.release(f.decided > 0 || f.decided == 0 && f.kind == "" && f.hasType)
	}
	s.stack, s.inStr, s.esc = s.stack[:0], false, false
}

func (s *secretJSON) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if s.text && !s.inStr && len(s.stack) == 0 && s.hold < 0 {
			// Outside any object, text cannot hold a Secret's value: skip to the next '{'
			// in one scan (a log has few), quotes included, so a stray one cannot matter.
			j := bytes.IndexByte(p[i:], '{')
			if j < 0 {
				s.out = append(s.out, p[i:]...)
				break
			}
			s.out = append(s.out, p[i:i+j]...)
			i += j
			c = '{'
		}
		if s.inStr {
			if c == '\n' && s.text {
				s.reset()
				s.emit(c)
				continue
			}
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.endString()
				continue
			}
			s.strByte(c)
			continue
		}
		switch c {
		case '"':
			s.beginString()
			continue
		case '{', '[':
			if len(s.stack) >= maxNesting {
				s.reset() // no Secret nests this deep: a hostile file must not grow the stack
			}
			s.emit(c)
			s.stack = append(s.stack, jframe{obj: c == '{', expectKey: c == '{'})
			continue
		case '}', ']':
			s.emit(c)
			s.pop()
			continue
		case ':', ',':
			if n := len(s.stack); n > 0 && s.stack[n-1].obj {
				s.stack[n-1].expectKey = c == ','
			}
		}
		s.emit(c)
	}
	if s.hold >= 0 && len(s.raw) > maxHold {
		s.stack[s.hold].decided = 1
		s.release(true)
	}
	_, err := s.w.Write(s.out)
	s.out = s.out[:0]
	return len(p), err
}

// Close ends the stream: held output is released redacted, and a Secret value cut off
// by the end of the file is replaced all the same.
func (s *secretJSON) Close() error {
	switch {
	case s.inStr && s.role == roleSecret && s.strLen > 0:
		s.out = append(s.out, Replacement...)
		s.counts[RuleSecretData]++
	case s.inStr && s.role == roleHeld && s.strLen > 0:
		s.red = append(s.red, Replacement...)
		s.heldCount++
	}
	if s.hold >= 0 {
		s.release(true)
	}
	_, err := s.w.Write(s.out)
	s.out = s.out[:0]
	return err
}

func (s *secretJSON) emit(c byte) {
	if s.hold >= 0 {
		s.raw = append(s.raw, c)
		s.red = append(s.red, c)
		return
	}
	s.out = append(s.out, c)
}

func (s *secretJSON) beginString() {
	s.inStr, s.esc, s.strLen, s.capture = true, false, 0, s.capture[:0]
	s.role = roleOther
	n := len(s.stack)
	switch {
	case n == 0 || !s.stack[n-1].obj:
	case s.stack[n-1].expectKey:
		s.role = roleKey
	default:
		if owner := s.secretOwner(); owner >= 0 {
			s.role = s.valueRole(owner)
		} else if k := s.stack[n-1].key; k == "kind" {
			s.role = roleKind
		} else if k == "type" {
			s.role = roleType
		}
	}
	s.emit('"')
}

// valueRole decides how a value that is secret if its owner is a Secret is written.
func (s *secretJSON) valueRole(owner int) strRole {
	switch d := s.stack[owner].decided; {
	case d > 0:
		return roleSecret
	case d < 0:
		return roleOther
	case s.hold < 0:
		s.hold = owner
		return roleHeld
	case s.hold == owner:
		return roleHeld
	default:
		return roleSecret // a second undecided owner inside the first: fail closed
	}
}

func (s *secretJSON) strByte(c byte) {
	s.strLen++
	if len(s.capture) < 256 {
		s.capture = append(s.capture, c)
	}
	switch s.role {
	case roleSecret:
	case roleHeld:
		s.raw = append(s.raw, c)
	default:
		s.emit(c)
	}
}

func (s *secretJSON) endString() {
	s.inStr = false
	redacted := s.strLen == len(Replacement) && string(s.capture) == Replacement
	var top *jframe
	if n := len(s.stack); n > 0 {
		top = &s.stack[n-1] // every role but roleOther has a frame
	}
	switch s.role {
	case roleSecret:
		if s.strLen > 0 {
			if !redacted {
				s.counts[RuleSecretData]++
			}
			s.emitBoth(Replacement)
		}
	case roleHeld:
		if s.strLen > 0 {
			if !redacted {
				s.heldCount++
			}
			s.red = append(s.red, Replacement...)
		}
	case roleKey:
		top.key = string(s.capture)
	case roleKind:
		top.kind = string(s.capture)
		top.decided = -1
		if top.kind == "Secret" {
			top.decided = 1
		}
		defer s.releaseIf(len(s.stack)-1, top.decided > 0)
	case roleType:
		top.hasType = true
	}
	s.emit('"')
}

// emitBoth writes text wherever output currently goes.
func (s *secretJSON) emitBoth(text string) {
	if s.hold >= 0 {
		s.raw = append(s.raw, text...)
		s.red = append(s.red, text...)
		return
	}
	s.out = append(s.out, text...)
}

func (s *secretJSON) pop() {
	n := len(s.stack)
	if n == 0 {
		return // not JSON; pass it on as it is
	}
	f := s.stack[n-1]
	s.releaseIf(n-1, f.decided > 0 || f.decided == 0 && f.kind == "" && f.hasType)
	s.stack = s.stack[:n-1]
}

func (s *secretJSON) releaseIf(i int, secret bool) {
	if s.hold == i {
		s.release(secret)
	}
}

// release ends a hold: the redacted copy goes out when the object is a Secret.
func (s *secretJSON) release(secret bool) {
	if secret {
		s.out = append(s.out, s.red...)
		if s.heldCount > 0 {
			s.counts[RuleSecretData] += s.heldCount
		}
	} else {
		s.out = append(s.out, s.raw...)
	}
	s.raw, s.red, s.heldCount, s.hold = s.raw[:0], s.red[:0], 0, -1
}

// secretOwner returns the stack index of the object whose Secret-ness decides whether
// the string value about to start is secret, or -1: the value sits in
// <owner>.data.<key>, <owner>.stringData.<key> or
// <owner>.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"].
func (s *secretJSON) secretOwner() int {
	st, n := s.stack, len(s.stack)
	if n >= 2 && st[n-2].obj && (st[n-2].key == "data" || st[n-2].key == "stringData") {
		return n - 2
	}
	if n >= 2 && st[n-1].key == "kubectl.kubernetes.io/last-applied-configuration" && st[n-2].key == "annotations" {
		if n >= 3 && st[n-3].key == "metadata" {
			return n - 3
		}
	}
	return -1
}
