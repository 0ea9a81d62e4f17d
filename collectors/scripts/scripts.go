// Package scripts holds the PowerShell snippets a node sweep runs (embedded, so the tool
// works air-gapped) and the sweep framing shared by the engine and the fake node, so both
// ends agree by construction.
package scripts

import (
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
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
}

// BootstrapScript reads the real script from stdin and runs it. It is tiny, so the
// command line stays far below cmd.exe's 8191 characters whatever the sweep holds.
const BootstrapScript = `$s=[Console]::In.ReadToEnd();& ([scriptblock]::Create($s))`

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

const prelude = `# wts:sweep v1
$ProgressPreference = 'SilentlyContinue'
$ErrorActionPreference = 'Continue'
[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false
function Read-WtsTail([string[]]$Paths, [long]$MaxBytes, [string]$What) {
    # The newest matching log, its last MaxBytes bytes read from the end (logs can be
    # gigabytes), opened shared because the service keeps writing it.
    $log = Get-ChildItem -Path $Paths -File -ErrorAction SilentlyContinue | Sort-Object LastWriteTime | Select-Object -Last 1
    if (-not $log) { throw "no $What log in $($Paths -join ', ')" }
    if ($MaxBytes -le 0) { throw "MaxBytes must be positive, not $MaxBytes" }
    $fs = [System.IO.File]::Open($log.FullName, 'Open', 'Read', 'ReadWrite')
    try {
        $n = [Math]::Min($MaxBytes, $fs.Length)
        [void]$fs.Seek(-$n, 'End')
        $buf = New-Object byte[] $n
        $got = 0
        while ($got -lt $n) { $r = $fs.Read($buf, $got, $n - $got); if ($r -le 0) { break }; $got += $r }
        [System.Text.Encoding]::UTF8.GetString($buf, 0, $got)
    } finally { $fs.Dispose() }
}
function Invoke-WtsCall([string]$Name, [string]$Params, [scriptblock]$Body) {
    $utf8 = New-Object System.Text.UTF8Encoding $false
    $p = @{}
    (ConvertFrom-Json $utf8.GetString([Convert]::FromBase64String($Params))).psobject.Properties |
        ForEach-Object { $p[$_.Name] = $_.Value }
    $errs = @(); $code = 0; $global:LASTEXITCODE = 0
    $out = try {
        & $Body @p 2>&1 | ForEach-Object {
            if ($_ -is [System.Management.Automation.ErrorRecord]) { $errs += ($_ | Out-String).Trim() } else { $_ }
        }
    } catch { $errs += ($_ | Out-String).Trim(); $code = 1 }
    if ($code -eq 0 -and $global:LASTEXITCODE) { $code = $global:LASTEXITCODE }
    if ($code -eq 0 -and $errs.Count) { $code = 1 }
    $text = (@($out) | ForEach-Object { if ($_ -is [string]) { $_ } else { ($_ | Out-String -Width 4096).TrimEnd() } }) -join "` + "`r`n" + `"
    '@@WTS@@ {0} {1} {2} {3}' -f $Name, $code, [Convert]::ToBase64String($utf8.GetBytes($text)),
        [Convert]::ToBase64String($utf8.GetBytes(($errs -join "` + "`n" + `")))
}
`

// Sweep joins calls into one script. Each call is framed so its output, error text and
// exit status come back on their own line, and one failing cmdlet never hides the others.
func Sweep(calls []Call) (string, error) {
	var b strings.Builder
	b.WriteString(prelude)
	for _, c := range calls {
		body, err := Body(c.Name)
		if err != nil {
			return "", err
		}
		params := c.Params
		if params == nil {
			params = map[string]any{}
		}
		pj, err := json.Marshal(params)
		if err != nil {
			return "", fmt.Errorf("encoding parameters of %s: %w", c.Name, err)
		}
		p64 := base64.StdEncoding.EncodeToString(pj)
		fmt.Fprintf(&b, "# wts:call %s %s\nInvoke-WtsCall -Name '%s' -Params '%s' -Body {\n%s\n}\n",
			c.Name, p64, c.Name, p64, strings.TrimRight(body, "\n"))
	}
	fmt.Fprintf(&b, "'%s END %d'\n", marker, len(calls))
	return b.String(), nil
}

// ParseSweep recovers the calls from a sweep script (the fake node's side).
// ok is false when the text is not a sweep at all.
func ParseSweep(script string) (calls []Call, ok bool, err error) {
	if !strings.HasPrefix(strings.TrimLeft(script, "\ufeff \r\n"), "# wts:sweep v1") {
		return nil, false, nil
	}
	callLine := regexp.MustCompile(`(?m)^# wts:call ([a-z0-9][a-z0-9.-]*) ([A-Za-z0-9+/=]*)\r?$`)
	for _, m := range callLine.FindAllStringSubmatch(script, -1) {
		pj, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			return nil, true, fmt.Errorf("call %s: parameters: %w", m[1], err)
		}
		var params map[string]any
		if err := json.Unmarshal(pj, &params); err != nil {
			return nil, true, fmt.Errorf("call %s: parameters: %w", m[1], err)
		}
		calls = append(calls, Call{Name: m[1], Params: params})
	}
	return calls, true, nil
}
