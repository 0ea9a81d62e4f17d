package winrm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	mz "github.com/masterzen/winrm"
	"github.com/masterzen/winrm/soap"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
)

// WSManFault codes (HRESULTs in the fault's detail) the transport acts on.
const (
	faultTimedOut      = 0x80338029 // Receive: no output within OperationTimeout, ask again
	faultShellNotFound = 0x8033805B
	faultShellQuota    = 0x803381A5 // MaxShellsPerUser exceeded
)

// call posts one SOAP message and returns the reply envelope, or a *faultError or
// *statusError for anything but HTTP 200.
func (t *winrmTransport) call(ctx context.Context, msg *soap.SoapMessage) (string, error) {
	body := msg.String()
	msg.Free()
	return t.post(ctx, []byte(body))
}

// post sends one SOAP envelope already rendered.
func (t *winrmTransport) post(ctx context.Context, body []byte) (string, error) {
	resp, err := t.http.post(ctx, body)
	if err != nil {
		return "", err
	}
	if nw := notWinRM(resp); nw != nil {
		nw.addr = t.addr
		return "", nw
	}
	if resp.status == http.StatusOK {
		return string(resp.body), nil
	}
	return "", replyError(resp)
}

func (t *winrmTransport) createShell(ctx context.Context) (string, error) {
	reply, err := t.call(ctx, mz.NewOpenShellRequest(t.url, t.params))
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
func (t *winrmTransport) runIn(ctx context.Context, shellID string, cmd transport.Command) (out transport.Output, commandID, op string, err error) {
	// masterzen wraps the command in CDATA; a "]]>" inside must be split across sections.
	line := strings.ReplaceAll(cmd.CommandLine, "]]>", "]]]]><![CDATA[>")
	reply, err := t.call(ctx, t.commandRequest(shellID, line, len(cmd.Stdin) > 0))
	if err != nil {
		return out, "", "start command", err
	}
	if commandID, err = elementText(reply, "CommandId", mz.ParseExecuteCommandResponse); err != nil || commandID == "" {
		return out, "", "start command", fmt.Errorf("the node's answer carries no CommandId (%v)", err)
	}
	// Without stdin we send nothing, as pywinrm does: the command then sees no input.
	for rest := cmd.Stdin; len(rest) > 0; {
		chunk := rest[:min(len(rest), stdinChunk)]
		rest = rest[len(chunk):]
		// The last chunk carries End="true": no extra request to close stdin.
		if _, err := t.post(ctx, t.sendRequest(shellID, commandID, chunk, len(rest) == 0)); err != nil {
			return out, commandID, "send stdin", err
		}
	}
	var stdout, stderr bytes.Buffer
	for {
		reply, err := t.call(ctx, mz.NewGetOutputRequest(t.url, shellID, commandID, "stdout stderr", t.params))
		var fe *faultError
		if errors.As(err, &fe) && fe.wsman == faultTimedOut {
			continue // still running: Windows answers every OperationTimeout so clients poll
		}
		// What arrived before a failure is returned with it: a sweep keeps the frames it has.
		partial := transport.Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
		if err != nil {
			return partial, commandID, "receive output", err
		}
		done, code, err := parseReceive(reply, &stdout, &stderr)
		if err != nil {
			return partial, commandID, "receive output", fmt.Errorf("reading the node's output: %w", err)
		}
		if done {
			return transport.Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: code}, commandID, "", nil
		}
	}
}

// commandRequest is masterzen's NewExecuteCommandRequest with one change: a command that
// is sent stdin gets it in pipe mode (WINRS_CONSOLEMODE_STDIN FALSE, MS-WSMV 3.1.4.11),
// as Ansible's winrm connection does (console_mode_stdin=(stdin_iterator is None)).
// masterzen always asks for console mode, where input is line-edited and its end may
// never reach a program reading to end-of-input.
func (t *winrmTransport) commandRequest(shellID, line string, withStdin bool) *soap.SoapMessage {
	consoleMode := "TRUE"
	if withStdin {
		consoleMode = "FALSE"
	}
	msg := soap.NewMessage()
	msg.Header().
		To(t.url).
		ReplyTo("http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous").
		MaxEnvelopeSize(t.params.EnvelopeSize).
		Id(messageID()).
		Locale(t.params.Locale).
		Timeout(t.params.Timeout).
		Action("http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Command").
		ResourceURI("http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd").
		ShellId(shellID).
		AddOption(soap.NewHeaderOption("WINRS_CONSOLEMODE_STDIN", consoleMode)).
		AddOption(soap.NewHeaderOption("WINRS_SKIP_CMD_SHELL", "FALSE")).
		Build()
	body := msg.CreateBodyElement("CommandLine", soap.DOM_NS_WIN_SHELL)
	// CDATA keeps & and < intact; runIn has split any "]]>" in the line.
	msg.CreateElement(body, "Command", soap.DOM_NS_WIN_SHELL).SetContent("<![CDATA[" + line + "]]>")
	return msg
}

// sendRequest renders the Send of one stdin chunk as masterzen's NewSendInputRequest does,
// as text: its DOM serializer escaped the ~128 KB of base64 a byte at a time, the
// largest client cost of a sweep after Receive parsing.
func (t *winrmTransport) sendRequest(shellID, commandID string, chunk []byte, eof bool) []byte {
	esc := func(s string) string {
		var b strings.Builder
		_ = xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var b strings.Builder
	b.Grow(base64.StdEncoding.EncodedLen(len(chunk)) + 1500)
	b.WriteString(`<?xml version="1.0" encoding="utf-8" ?>` + "\n" +
		`<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" ` +
		`xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell" xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd" ` +
		`xmlns:p="http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd"><env:Header><a:To>`)
	b.WriteString(esc(t.url))
	b.WriteString(`</a:To>` + "\n" + `<a:ReplyTo><a:Address mustUnderstand="true">http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address>` + "\n" +
		`</a:ReplyTo>` + "\n" + `<w:MaxEnvelopeSize mustUnderstand="true">`)
	b.WriteString(strconv.Itoa(t.params.EnvelopeSize))
	b.WriteString(`</w:MaxEnvelopeSize>` + "\n" + `<w:OperationTimeout>` + esc(t.params.Timeout) + `</w:OperationTimeout>` + "\n" +
		`<a:MessageID>` + messageID() + `</a:MessageID>` + "\n" +
		`<w:Locale mustUnderstand="false" xml:lang="` + esc(t.params.Locale) + `"/><p:DataLocale mustUnderstand="false" xml:lang="` + esc(t.params.Locale) + `"/>` +
		`<a:Action mustUnderstand="true">http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Send</a:Action>` + "\n" +
		`<w:SelectorSet><w:Selector Name="ShellId">` + esc(shellID) + `</w:Selector>` + "\n" + `</w:SelectorSet>` + "\n" +
		`<w:ResourceURI mustUnderstand="true">http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd</w:ResourceURI>` + "\n" +
		`</env:Header>` + "\n" + `<env:Body><rsp:Send><rsp:Stream Name="stdin" CommandId="` + esc(commandID) + `"`)
	if eof {
		b.WriteString(` End="true"`)
	}
	b.WriteString(">")
	b.WriteString(base64.StdEncoding.EncodeToString(chunk))
	b.WriteString(`</rsp:Stream>` + "\n" + `</rsp:Send>` + "\n" + `</env:Body>` + "\n" + `</env:Envelope>` + "\n")
	return []byte(b.String())
}

// messageID is a WS-Addressing MessageID: a random (version 4) UUID.
func messageID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("uuid:%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (t *winrmTransport) signal(ctx context.Context, shellID, commandID string) error {
	_, err := t.call(ctx, mz.NewSignalRequest(t.url, shellID, commandID, t.params))
	return err
}

func (t *winrmTransport) deleteShell(ctx context.Context, shellID string) error {
	_, err := t.call(ctx, mz.NewDeleteShellRequest(t.url, shellID, t.params))
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
