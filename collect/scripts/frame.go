package scripts

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
)

const marker = "@@WTS@@"

// Result is what one call printed: stdout verbatim, its error text, its exit status, and
// notes: native stderr of a call that exited 0, and warnings, which are not failures.
type Result struct {
	Name   string
	Stdout []byte
	Stderr []byte
	Exit   int
	Notes  []byte
}

// Failed reports whether the call failed or wrote errors.
func (r Result) Failed() bool { return r.Exit != 0 || len(r.Stderr) > 0 }

// Frame renders results the way the sweep script prints them (the fake node's side).
func Frame(results []Result) []byte {
	var b []byte
	for _, r := range results {
		b = append(b, FrameOne(r)...)
	}
	return append(b, FrameEnd(len(results))...)
}

// FrameOne renders one call's frame line, as Invoke-WtsCall prints it.
func FrameOne(r Result) []byte {
	enc := base64.StdEncoding.EncodeToString
	return fmt.Appendf(nil, "%s %s %d %s %s %s\r\n", marker, r.Name, r.Exit, enc(r.Stdout), enc(r.Stderr), enc(r.Notes))
}

// FrameEnd renders the end marker of a sweep of n calls.
func FrameEnd(n int) []byte { return fmt.Appendf(nil, "%s END %d\r\n", marker, n) }

// ErrTruncated says the reply ended before the sweep's end marker.
var ErrTruncated = errors.New("reply ended before the sweep finished (connection dropped or node stopped the script)")

// Split parses a sweep reply. Lines that are not frames (a profile's banner, stray host
// output) are returned as noise rather than failing the sweep. A reply cut short returns
// the complete frames it has and an error wrapping ErrTruncated.
//
// Every stream is decoded into one buffer the results share (each capped at its own end,
// so appending to one never reaches the next): a node's files are kept together anyway,
// and one allocation replaces a line copy and three decodes per frame.
func Split(out []byte) (results []Result, noise []string, err error) {
	buf := make([]byte, 0, base64.StdEncoding.DecodedLen(len(out)))
	return split(out, func(field []byte) ([]byte, error) {
		start := len(buf)
		var err error
		buf, err = base64.StdEncoding.AppendDecode(buf, field)
		return buf[start:len(buf):len(buf)], err
	})
}

// SplitInPlace is Split decoding each stream over its own base64 in out, which it
// overwrites: the results are slices of out, and nothing is allocated for them. For a
// caller that is done with the reply (a sweep: the transport's buffer becomes the files).
func SplitInPlace(out []byte) (results []Result, noise []string, err error) {
	return split(out, func(field []byte) ([]byte, error) {
		n, err := base64.StdEncoding.Decode(field, field) // writes behind what it reads
		return field[:n:n], err
	})
}

func split(out []byte, decode func([]byte) ([]byte, error)) (results []Result, noise []string, err error) {
	// A reply cut in the middle of a line ends without a newline: drop the partial line,
	// so the cut shows as truncation rather than as a damaged frame.
	if i := bytes.LastIndexByte(out, '\n'); i < len(out)-1 {
		out = out[:i+1]
	}
	prefix := []byte(marker + " ")
	ended := -1
	for rest := out; len(rest) > 0; {
		nl := bytes.IndexByte(rest, '\n') // out ends with one
		line := bytes.TrimRight(rest[:nl], "\r")
		rest = rest[nl+1:]
		if !bytes.HasPrefix(line, prefix) {
			if len(bytes.TrimSpace(line)) > 0 {
				noise = append(noise, string(line))
			}
			continue
		}
		f, n := fields(line)
		if n == 3 && string(f[1]) == "END" {
			n, convErr := strconv.Atoi(string(f[2]))
			if convErr != nil {
				return results, noise, fmt.Errorf("sweep end marker %q: %w", line, convErr)
			}
			ended = n
			continue
		}
		// Exactly one space between fields: an empty stream is an empty field. Frames
		// without the notes field (5 fields) come from sweeps before notes existed.
		if n != 5 && n != 6 {
			return results, noise, fmt.Errorf("malformed sweep frame %.80q", line)
		}
		exit, convErr := strconv.Atoi(string(f[2]))
		if convErr != nil {
			return results, noise, fmt.Errorf("frame of %s: exit status %q is not a number", f[1], f[2])
		}
		so, e1 := decode(f[3])
		se, e2 := decode(f[4])
		var notes []byte
		var e3 error
		if n == 6 {
			notes, e3 = decode(f[5])
		}
		if e1 != nil || e2 != nil || e3 != nil {
			return results, noise, fmt.Errorf("frame of %s: output is not valid base64 (reply damaged in transit?)", f[1])
		}
		results = append(results, Result{Name: string(f[1]), Exit: exit, Stdout: so, Stderr: se, Notes: notes})
	}
	if ended < 0 {
		return results, noise, fmt.Errorf("%w: %d of the calls arrived", ErrTruncated, len(results))
	}
	if ended != len(results) {
		return results, noise, fmt.Errorf("%w: the end marker counts %d calls, %d arrived", ErrTruncated, ended, len(results))
	}
	return results, noise, nil
}

// fields splits a frame line at each space, into at most 6 fields; n is 7 for a line
// with more.
func fields(line []byte) (f [6][]byte, n int) {
	for {
		if n == len(f) {
			return f, n + 1
		}
		i := bytes.IndexByte(line, ' ')
		if i < 0 {
			f[n] = line
			return f, n + 1
		}
		f[n], line = line[:i], line[i+1:]
		n++
	}
}
