package winrm

import (
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	mz "github.com/masterzen/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// WSManFault codes (HRESULTs in the fault's detail) the transport acts on.
const (
	faultTimedOut      = 0x80338029 // Receive: no output within OperationTimeout, ask again
	faultShellNotFound = 0x8033805B
	faultShellQuota    = 0x803381A5 // MaxShellsPerUser exceeded
)

// post sends one rendered envelope and returns the reply envelope, or a *faultError or
// *statusError for anything but HTTP 200.
func (t *winrmTransport) post(ctx context.Context, body ...[]byte) ([]byte, error) {
	resp, err := t.http.post(ctx, body)
	if err != nil {
		return nil, err
	}
	if nw := notWinRM(resp); nw != nil {
		nw.addr = t.addr
		return nil, nw
	}
	if resp.status == http.StatusOK {
		return resp.body, nil
	}
	return nil, replyError(resp)
}

func (t *winrmTransport) createShell(ctx context.Context) (string, error) {
	reply, err := t.post(ctx, t.createRequest())
	if err != nil {
		return "", err
	}
	id, err := elementText(reply, "ShellId", mz.ParseOpenShellResponse)
	if err == nil && id == "" {
		err = errors.New("the node's answer carries no ShellId")
	}
	return id, err
}

// runIn starts the command, streams stdin and collects output. op names the step that
// failed; commandID is set once the command exists, so cleanup can stop it.
//
// The requests go in Ansible's order (plugins/connection/winrm.py _winrm_exec: run_command,
// every stdin Send, then get_command_output): Command, Send, then Receive until Done.
// WinRS takes stdin before the first Receive, so a sweep's stdin (one chunk: the script is
// about 22 KB) costs one Send and its output usually one Receive. Stdin cannot ride in the
// Command, which carries only the command line and its arguments (MS-WSMV 3.1.4.11), and
// the script does not fit cmd.exe's 8191 characters even compressed and -EncodedCommand'd.
func (t *winrmTransport) runIn(ctx context.Context, shellID string, cmd transport.Command) (out transport.Output, commandID, op string, err error) {
	reply, err := t.post(ctx, t.commandRequest(shellID, cmd.CommandLine, len(cmd.Stdin) > 0))
	if err != nil {
		return out, "", "start command", err
	}
	if commandID, err = elementText(reply, "CommandId", mz.ParseExecuteCommandResponse); err != nil || commandID == "" {
		return out, "", "start command", fmt.Errorf("the node's answer carries no CommandId (%v)", err)
	}
	// Without stdin we send nothing, as pywinrm does: the command then sees no input.
	stdin := cmd.StdinBase64
	if stdin == nil && len(cmd.Stdin) > 0 {
		stdin = base64.StdEncoding.AppendEncode(nil, cmd.Stdin)
	}
	for rest := stdin; len(rest) > 0; {
		chunk := rest[:min(len(rest), base64.StdEncoding.EncodedLen(stdinChunk))]
		rest = rest[len(chunk):]
		// The last chunk carries End="true": no extra request to close stdin.
		if _, err := t.post(ctx, t.sendRequest(shellID, commandID, chunk, len(rest) == 0)...); err != nil {
			return out, commandID, "send stdin", err
		}
	}
	var got output
	for {
		reply, err := t.post(ctx, t.receiveRequest(shellID, commandID))
		var fe *faultError
		if errors.As(err, &fe) && fe.wsman == faultTimedOut {
			continue // still running: Windows answers every OperationTimeout so clients poll
		}
		// What arrived before a failure is returned with it: a sweep keeps the frames it has.
		partial := transport.Output{Stdout: got.stdout, Stderr: got.stderr}
		if err != nil {
			return partial, commandID, "receive output", err
		}
		done, code, err := parseReceive(reply, &got)
		if err != nil {
			return partial, commandID, "receive output", fmt.Errorf("reading the node's output: %w", err)
		}
		if done {
			return transport.Output{Stdout: got.stdout, Stderr: got.stderr, ExitCode: code}, commandID, "", nil
		}
	}
}

func (t *winrmTransport) signal(ctx context.Context, shellID, commandID string) error {
	_, err := t.post(ctx, t.signalRequest(shellID, commandID))
	return err
}

func (t *winrmTransport) deleteShell(ctx context.Context, shellID string) error {
	_, err := t.post(ctx, t.deleteRequest(shellID))
	return err
}

// faultError is a WS-Management SOAP fault from the node.
type faultError struct {
	status  int
	code    string // s:Sender or s:Receiver, then the subcode (w:TimedOut, ...)
	wsman   uint64 // the WSManFault Code: an HRESULT such as 2150858793
	message string
}

func (e *faultError) Error() string {
	s := fmt.Sprintf("WS-Management fault %s", e.code)
	if e.wsman != 0 {
		s += fmt.Sprintf(" (0x%08X)", e.wsman)
	}
	if e.message != "" {
		s += ": " + e.message
	}
	return s
}

// statusError is an HTTP answer that is neither success nor a SOAP fault.
type statusError struct {
	status  int
	offered []string // authentication schemes in WWW-Authenticate
	text    string   // the start of a non-SOAP body, if any
}

func (e *statusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.status, http.StatusText(e.status))
	if e.status == http.StatusUnauthorized {
		s += " (credentials rejected"
		if len(e.offered) > 0 {
			s += "; the node offers " + strings.Join(e.offered, ", ")
		}
		s += ")"
	}
	if e.text != "" {
		s += ": " + e.text
	}
	return s
}

// replyError turns a non-200 answer into a *faultError when it carries a SOAP fault.
func replyError(resp *httpResponse) error {
	var env struct {
		Fault *struct {
			Code struct {
				Value   string `xml:"Value"`
				Subcode struct {
					Value string `xml:"Value"`
				} `xml:"Subcode"`
			} `xml:"Code"`
			Reason string `xml:"Reason>Text"`
			Detail struct {
				WSMan struct {
					Code    string `xml:"Code,attr"`
					Message string `xml:"Message"`
				} `xml:"WSManFault"`
			} `xml:"Detail"`
		} `xml:"Body>Fault"`
	}
	if strings.Contains(resp.header.Get("Content-Type"), "soap+xml") &&
		xml.Unmarshal(resp.body, &env) == nil && env.Fault != nil {
		f := env.Fault
		code, _ := strconv.ParseUint(strings.TrimSpace(f.Detail.WSMan.Code), 10, 64)
		msg := strings.TrimSpace(f.Detail.WSMan.Message)
		if msg == "" {
			msg = strings.TrimSpace(f.Reason)
		}
		return &faultError{status: resp.status, code: strings.TrimSpace(f.Code.Value + " " + f.Code.Subcode.Value), wsman: code, message: msg}
	}
	e := &statusError{status: resp.status}
	for _, v := range resp.header.Values("WWW-Authenticate") {
		scheme, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		e.offered = append(e.offered, scheme)
	}
	if text, _, _ := strings.Cut(strings.TrimSpace(string(resp.body)), "\n"); text != "" && !strings.HasPrefix(text, "<") {
		e.text = text[:min(len(text), 200)]
	}
	return e
}
