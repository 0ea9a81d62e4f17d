// Package scripts holds the PowerShell snippets a node sweep runs (embedded, so the tool
// works air-gapped) and the sweep framing shared by the engine and the fake node, so both
// ends agree by construction.
package scripts

import (
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"
	"unicode/utf16"
)

//go:embed snippets/*.ps1 fixes/*.ps1
var embedded embed.FS

// FixPrefix starts the name of every fix script; evidence snippets are named after the
// evidence file they produce (hns-networks.json).
const FixPrefix = "fix-"

// validName says whether a script name is one this package could have embedded:
// lower-case letters, digits, '.' and '-', not starting with '.' or '-'.
func validName(name string) bool {
	for i, c := range name {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '.' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return name != ""
}

// Body returns the source of a snippet (an evidence name) or a fix script (fix-...).
func Body(name string) (string, error) {
	if !validName(name) {
		return "", fmt.Errorf("script name %q: only lower-case letters, digits, '.' and '-' are allowed", name)
	}
	dir := "snippets"
	if strings.HasPrefix(name, FixPrefix) {
		dir = "fixes"
	}
	b, err := embedded.ReadFile(dir + "/" + name + ".ps1")
	if err != nil {
		return "", fmt.Errorf("no script named %q", name)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n"), nil
}

// Snippets lists the evidence snippet names (= node evidence file names), sorted.
func Snippets() []string { return list("snippets") }

// Fixes lists the fix script names, sorted.
func Fixes() []string { return list("fixes") }

func list(dir string) []string {
	entries, _ := fs.ReadDir(embedded, dir)
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".ps1"))
	}
	sort.Strings(out)
	return out
}

// Call is one framed invocation in a sweep: a script by name and its parameters.
// Parameters reach PowerShell as base64-encoded JSON splatted into the script's param()
// block, never as source text, so no value can change what the script does.
type Call struct {
	Name   string
	Params map[string]any
	// Limit bounds the call on the node: past it the call is stopped and its frame says
	// "timed out after N s". Zero: DefaultLimit for a snippet, none for a fix (a restart
	// or an image build may take minutes; the caller's deadline bounds it).
	Limit time.Duration
}

// BootstrapScript reads the real script from stdin and runs it. It is tiny, so the
// command line stays far below cmd.exe's 8191 characters whatever the sweep holds.
//
// It first refuses ConstrainedLanguage mode (a WDAC or AppLocker policy): there
// [Console]::In and [scriptblock]::Create are blocked, and the node would answer with a
// parse error that names neither. $ExecutionContext.SessionState.LanguageMode is readable
// in every mode ("about_Language_Modes").
const BootstrapScript = `$m=$ExecutionContext.SessionState.LanguageMode;` +
	`if($m -ne 'FullLanguage'){throw "PowerShell runs in $m mode on ${env:COMPUTERNAME}: ` + clmAdvice + `"};` +
	`$s=[Console]::In.ReadToEnd();& ([scriptblock]::Create($s))`

// clmAdvice is the rest of the ConstrainedLanguage refusal.
const clmAdvice = `a WDAC or AppLocker policy blocks the sweep (it needs [Console]::In and [scriptblock]::Create); ` +
	`run it as an account the policy exempts, or collect the evidence by hand (fixtures/scenarios/README.md)`

// LanguageModeRefusal is the start of the error the bootstrap throws outside FullLanguage.
const LanguageModeRefusal = "PowerShell runs in "

// RefuseLanguageMode is the bootstrap's error text for a language mode on a computer (the
// fake node's side).
func RefuseLanguageMode(mode, computer string) string {
	return LanguageModeRefusal + mode + " mode on " + computer + ": " + clmAdvice
}

// CommandLine is the command run on the node; the sweep script goes on its stdin.
func CommandLine() string {
	return "powershell.exe -NoLogo -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand " +
		EncodeCommand(BootstrapScript)
}

// EncodeCommand encodes a script for -EncodedCommand: UTF-16LE, then base64.
func EncodeCommand(script string) string {
	u := utf16.Encode([]rune(script))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// DecodeCommand reverses EncodeCommand.
func DecodeCommand(enc string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return "", fmt.Errorf("decoding -EncodedCommand: %w", err)
	}
	if len(b)%2 != 0 {
		return "", fmt.Errorf("decoding -EncodedCommand: odd byte count %d is not UTF-16", len(b))
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), nil
}
