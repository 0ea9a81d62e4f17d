package scripts

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
func Split(out []byte) (results []Result, noise []string, err error) {
	// A reply cut in the middle of a line ends without a newline: drop the partial line,
	// so the cut shows as truncation rather than as a damaged frame.
	if i := bytes.LastIndexByte(out, '\n'); i < len(out)-1 {
		out = out[:i+1]
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 256*1024*1024)
	ended := -1
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if !strings.HasPrefix(line, marker+" ") {
			if strings.TrimSpace(line) != "" {
				noise = append(noise, line)
			}
			continue
		}
		f := strings.Split(line, " ")
		if len(f) == 3 && f[1] == "END" {
			n, convErr := strconv.Atoi(f[2])
			if convErr != nil {
				return results, noise, fmt.Errorf("sweep end marker %q: %w", line, convErr)
			}
			ended = n
			continue
		}
		// Exactly one space between fields: an empty stream is an empty field. Frames
		// without the notes field (5 fields) come from sweeps before notes existed.
		if len(f) != 5 && len(f) != 6 {
			return results, noise, fmt.Errorf("malformed sweep frame %.80q", line)
		}
		exit, convErr := strconv.Atoi(f[2])
		if convErr != nil {
			return results, noise, fmt.Errorf("frame of %s: exit status %q is not a number", f[1], f[2])
		}
		so, e1 := base64.StdEncoding.DecodeString(f[3])
		se, e2 := base64.StdEncoding.DecodeString(f[4])
		var notes []byte
		var e3 error
		if len(f) == 6 {
			notes, e3 = base64.StdEncoding.DecodeString(f[5])
		}
		if e1 != nil || e2 != nil || e3 != nil {
			return results, noise, fmt.Errorf("frame of %s: output is not valid base64 (reply damaged in transit?)", f[1])
		}
		results = append(results, Result{Name: f[1], Exit: exit, Stdout: so, Stderr: se, Notes: notes})
	}
	if err := sc.Err(); err != nil {
		return results, noise, fmt.Errorf("reading sweep reply: %w", err)
	}
	if ended < 0 {
		return results, noise, fmt.Errorf("%w: %d of the calls arrived", ErrTruncated, len(results))
	}
	if ended != len(results) {
		return results, noise, fmt.Errorf("%w: the end marker counts %d calls, %d arrived", ErrTruncated, ended, len(results))
	}
	return results, noise, nil
}
