package winrm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"net"
	"strconv"
	"strings"
)

// The WinRS requests, rendered as text: each is masterzen's New...Request (this version)
// byte for byte but for the random MessageID (envelope_test.go compares them). Its DOM
// serializer built a tree and escaped it a byte at a time, a tenth of a sweep's client
// CPU at fleet scale; these append to one buffer the request is written from.

const (
	nsEnvelope = `<?xml version="1.0" encoding="utf-8" ?>` + "\n" +
		`<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" ` +
		`xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell" xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd" ` +
		`xmlns:p="http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd"><env:Header><a:To>`
	actionCreate  = "http://schemas.xmlsoap.org/ws/2004/09/transfer/Create"
	actionDelete  = "http://schemas.xmlsoap.org/ws/2004/09/transfer/Delete"
	actionCommand = "http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Command"
	actionSend    = "http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Send"
	actionReceive = "http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Receive"
	actionSignal  = "http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Signal"
	envelopeEnd   = "</env:Body>\n</env:Envelope>\n"
)

// header appends the envelope's start and header; opts are option name, value pairs.
// The body follows "<env:Body>".
func (t *winrmTransport) header(b []byte, action, shellID string, opts ...string) []byte {
	b = append(b, nsEnvelope...)
	b = appendEscaped(b, t.url)
	b = append(b, "</a:To>\n<a:ReplyTo><a:Address mustUnderstand=\"true\">http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address>\n"+
		"</a:ReplyTo>\n<w:MaxEnvelopeSize mustUnderstand=\"true\">"...)
	b = strconv.AppendInt(b, int64(t.params.EnvelopeSize), 10)
	b = append(b, "</w:MaxEnvelopeSize>\n<w:OperationTimeout>"...)
	b = appendEscaped(b, t.params.Timeout)
	b = append(b, "</w:OperationTimeout>\n<a:MessageID>"...)
	b = appendMessageID(b)
	b = append(b, "</a:MessageID>\n<w:Locale mustUnderstand=\"false\" xml:lang=\""...)
	b = appendEscaped(b, t.params.Locale)
	b = append(b, "\"/><p:DataLocale mustUnderstand=\"false\" xml:lang=\""...)
	b = appendEscaped(b, t.params.Locale)
	b = append(b, "\"/><a:Action mustUnderstand=\"true\">"...)
	b = append(b, action...)
	b = append(b, "</a:Action>\n"...)
	if shellID != "" {
		b = append(b, "<w:SelectorSet><w:Selector Name=\"ShellId\">"...)
		b = appendEscaped(b, shellID)
		b = append(b, "</w:Selector>\n</w:SelectorSet>\n"...)
	}
	b = append(b, "<w:ResourceURI mustUnderstand=\"true\">http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd</w:ResourceURI>\n"...)
	if len(opts) > 0 {
		b = append(b, "<w:OptionSet>"...)
		for i := 0; i+1 < len(opts); i += 2 {
			b = append(b, "<w:Option Name=\""...)
			b = appendEscaped(b, opts[i])
			b = append(b, "\">"...)
			b = appendEscaped(b, opts[i+1])
			b = append(b, "</w:Option>\n"...)
		}
		b = append(b, "</w:OptionSet>\n"...)
	}
	return append(b, "</env:Header>\n<env:Body>"...)
}

// createRequest opens a cmd shell with stdin and stdout/stderr (NewOpenShellRequest).
func (t *winrmTransport) createRequest() []byte {
	b := t.header(make([]byte, 0, 2048), actionCreate, "", "WINRS_NOPROFILE", "FALSE", "WINRS_CODEPAGE", "65001")
	return append(b, "<rsp:Shell><rsp:InputStreams>stdin</rsp:InputStreams>\n<rsp:OutputStreams>stdout stderr</rsp:OutputStreams>\n</rsp:Shell>\n"+envelopeEnd...)
}

// commandRequest is masterzen's NewExecuteCommandRequest with one change: a command that
// is sent stdin gets it in pipe mode (WINRS_CONSOLEMODE_STDIN FALSE, MS-WSMV 3.1.4.11),
// as Ansible's winrm connection does (console_mode_stdin=(stdin_iterator is None)).
// masterzen always asks for console mode, where input is line-edited and its end may
// never reach a program reading to end-of-input. line is wrapped in CDATA, so & and <
// stay intact; a "]]>" inside is split across two sections.
func (t *winrmTransport) commandRequest(shellID, line string, withStdin bool) []byte {
	consoleMode := "TRUE"
	if withStdin {
		consoleMode = "FALSE"
	}
	b := t.header(make([]byte, 0, 2048+len(line)), actionCommand, shellID,
		"WINRS_CONSOLEMODE_STDIN", consoleMode, "WINRS_SKIP_CMD_SHELL", "FALSE")
	b = append(b, "<rsp:CommandLine><rsp:Command><![CDATA["...)
	b = append(b, strings.ReplaceAll(line, "]]>", "]]]]><![CDATA[>")...)
	return append(b, "]]></rsp:Command>\n</rsp:CommandLine>\n"+envelopeEnd...)
}

// sendRequest carries one stdin chunk (NewSendInputRequest), given base64-encoded.
func (t *winrmTransport) sendRequest(shellID, commandID string, chunkB64 []byte, eof bool) net.Buffers {
	b := t.header(make([]byte, 0, 2048), actionSend, shellID)
	b = append(b, "<rsp:Send><rsp:Stream Name=\"stdin\" CommandId=\""...)
	b = appendEscaped(b, commandID)
	b = append(b, '"')
	if eof {
		b = append(b, " End=\"true\""...)
	}
	b = append(b, '>')
	// The stream text is sent as given, not copied: a sweep's stdin is encoded once for
	// every node (transport.Command.StdinBase64).
	return net.Buffers{b, chunkB64, []byte(sendEnd)}
}

const sendEnd = "</rsp:Stream>\n</rsp:Send>\n" + envelopeEnd

// receiveRequest asks for the command's stdout and stderr (NewGetOutputRequest).
func (t *winrmTransport) receiveRequest(shellID, commandID string) []byte {
	b := t.header(make([]byte, 0, 2048), actionReceive, shellID)
	b = append(b, "<rsp:Receive><rsp:DesiredStream CommandId=\""...)
	b = appendEscaped(b, commandID)
	return append(b, "\">stdout stderr</rsp:DesiredStream>\n</rsp:Receive>\n"+envelopeEnd...)
}

// signalRequest terminates the command (NewSignalRequest).
func (t *winrmTransport) signalRequest(shellID, commandID string) []byte {
	b := t.header(make([]byte, 0, 2048), actionSignal, shellID)
	b = append(b, "<rsp:Signal CommandId=\""...)
	b = appendEscaped(b, commandID)
	return append(b, "\"><rsp:Code>http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/terminate</rsp:Code>\n</rsp:Signal>\n"+envelopeEnd...)
}

// deleteRequest deletes the shell (NewDeleteShellRequest), whose body is empty.
func (t *winrmTransport) deleteRequest(shellID string) []byte {
	b := t.header(make([]byte, 0, 2048), actionDelete, shellID)
	b = b[:len(b)-len("<env:Body>")]
	return append(b, "<env:Body/></env:Envelope>\n"...)
}

// appendEscaped appends s escaped for XML text and attribute values, as encoding/xml
// escapes it; the usual value (a UUID, a URL) has nothing to escape and is copied.
func appendEscaped(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "&<>\"'\t\n\r") && isPrintable(s) {
		return append(b, s...)
	}
	var sb strings.Builder
	_ = xml.EscapeText(&sb, []byte(s))
	return append(b, sb.String()...)
}

func isPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// appendMessageID appends a WS-Addressing MessageID: a random (version 4) UUID.
func appendMessageID(b []byte) []byte {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails (Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	hex.Encode(s[9:13], u[4:6])
	hex.Encode(s[14:18], u[6:8])
	hex.Encode(s[19:23], u[8:10])
	hex.Encode(s[24:36], u[10:16])
	s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
	b = append(b, "uuid:"...)
	return append(b, s[:]...)
}
