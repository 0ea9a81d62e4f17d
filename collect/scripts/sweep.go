package scripts

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultLimit bounds one snippet on the node when its Call sets no Limit. A healthy node
// answers every snippet in a few seconds; five hung HNS and runtime calls at this limit
// still fit the default two-minute node timeout.
const DefaultLimit = 20 * time.Second

// ExitTimedOut is the exit status of a call stopped at its limit: ERROR_TIMEOUT (1460),
// "This operation returned because the timeout period expired."
const ExitTimedOut = 1460

// mayHangMarker in a snippet's source says the snippet calls something that can block
// forever (HNS, the docker or containerd pipe), so the sweep runs it after the others.
const mayHangMarker = "# wts:may-hang"

// MayHang reports whether the named script declares that it can hang.
func MayHang(name string) bool {
	b, err := Body(name)
	return err == nil && strings.Contains(b, mayHangMarker)
}

// TimedOut is the error text of a call stopped at its limit; the sweep script prints the
// same words (see prelude).
func TimedOut(name string, limit time.Duration) string {
	return fmt.Sprintf("timed out after %d s (%s %s)", limitSeconds(limit), name, timedOutWhy)
}

const timedOutWhy = "was stopped: what it calls did not answer; HNS, docker or containerd may be hung"

// limitSeconds is the whole seconds the script waits: at least one, rounded up.
func limitSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// helpers are defined in each call's runspace: functions snippets share.
const helpers = `$ProgressPreference = 'SilentlyContinue'
function Read-WtsTail([string[]]$Paths, [long]$MaxBytes, [string]$What) {
    # The newest matching log, its last MaxBytes bytes read from the end (logs can be
    # gigabytes), opened shared because the service keeps writing it.
    $log = Get-ChildItem -Path $Paths -File -ErrorAction SilentlyContinue | Sort-Object LastWriteTime | Select-Object -Last 1
    if (-not $log) { throw "no $What log in $($Paths -join ', ')" }
    if ($MaxBytes -le 0) { throw "MaxBytes must be positive, not $MaxBytes" }
    # klog writes UTF-8; a log redirected by Windows PowerShell 5.1 (> or >>, as AKS's
    # kubeproxy.log) is UTF-16LE with a BOM, so read the BOM and keep the tail even.
    $fs = [System.IO.File]::Open($log.FullName, 'Open', 'Read', 'ReadWrite')
    try {
        $bom = New-Object byte[] 2
        $enc = [System.Text.Encoding]::UTF8
        $n = [Math]::Min($MaxBytes, $fs.Length)
        if ($fs.Read($bom, 0, 2) -eq 2 -and $bom[0] -eq 0xFF -and $bom[1] -eq 0xFE) { $enc = [System.Text.Encoding]::Unicode; $n -= $n % 2 }
        [void]$fs.Seek(-$n, 'End')
        $buf = New-Object byte[] $n
        $got = 0
        while ($got -lt $n) { $r = $fs.Read($buf, $got, $n - $got); if ($r -le 0) { break }; $got += $r }
        $enc.GetString($buf, 0, $got).TrimStart([char]0xFEFF)
    } finally { $fs.Dispose() }
}
function Read-WtsText([string]$Path) {
    # A config file's text. Windows PowerShell 5.1's Get-Content reads a file without a BOM
    # in the ANSI code page (about_Character_Encoding), so the BOM-less UTF-8 that Go
    # programs, containerd and kubeadm write comes back garbled past ASCII.
    # [IO.File]::ReadAllText reads UTF-8 unless a BOM names another encoding (UTF-16 too:
    # what Out-File writes) and drops the BOM.
    [System.IO.File]::ReadAllText((Get-Item -LiteralPath $Path -ErrorAction Stop).FullName)
}
function Limit-WtsList([object[]]$Items, [int]$Max, [string]$What) {
    # The first Max items, and a warning (the call's notes) naming how many were cut.
    # The comma keeps a list of one a list through the function's output.
    if ($Max -le 0 -or $Items.Count -le $Max) { return ,$Items }
    Write-Warning "${What}: kept the first $Max of $($Items.Count); the rest were cut"
    return ,$Items[0..($Max - 1)]
}
function Limit-WtsText([string]$Text, [int]$Max) {
    # Text cut to Max characters, saying so at its end.
    if ($Text.Length -le $Max) { return $Text }
    $Text.Substring(0, $Max) + " [cut: $($Text.Length - $Max) more characters]"
}
function Start-WtsService([string]$Name, [int]$TimeoutSec = 90, [switch]$Restart) {
    # Start-Service and Restart-Service wait without a bound on a service stuck in
    # StartPending or StopPending; ask, then wait at most TimeoutSec for each step
    # (ServiceController.WaitForStatus throws System.ServiceProcess.TimeoutException).
    $svc = Get-Service -Name $Name -ErrorAction Stop
    $limit = [TimeSpan]::FromSeconds($TimeoutSec)
    if ($Restart -and $svc.Status -ne 'Stopped') {
        Stop-Service -InputObject $svc -Force -NoWait -ErrorAction Stop
        try { $svc.WaitForStatus('Stopped', $limit) } catch { throw "$Name did not stop within $TimeoutSec s (it is $((Get-Service -Name $Name).Status))" }
    }
    $svc.Refresh()
    if ($svc.Status -ne 'Running') {
        if ($svc.Status -eq 'Stopped') { $svc.Start() }
        try { $svc.WaitForStatus('Running', $limit) } catch { throw "$Name did not start within $TimeoutSec s (it is $((Get-Service -Name $Name).Status))" }
    }
}
function Restart-WtsServiceDetached([string]$Name, [int]$DelaySec = 3) {
    # Restarts a service in a process of its own, DelaySec from now, and returns at once.
    # In a HostProcess container (CONTAINER_SANDBOX_MOUNT_POINT is set there) the call
    # runs under the kubelet's exec, which containerd serves: restarting either of them
    # cuts that stream, so a restart done in the call would end it mid-way and look
    # failed although it worked. The child is a process of the container's job, which
    # outlives the exec. The line it prints names the service's process now
    # (scripts.DetachedRestart): the caller waits until another process answers, and
    # only then judges the fix by re-probing.
    $svcPid = @(Get-CimInstance Win32_Service | Where-Object { $_.Name -eq $Name } | ForEach-Object { $_.ProcessId })[0]
    if ($null -eq $svcPid) { $svcPid = 0 }
    $cmd = "Start-Sleep -Seconds $DelaySec; Restart-Service -Name '$($Name -replace "'", "''")' -Force"
    $enc = [Convert]::ToBase64String([Text.Encoding]::Unicode.GetBytes($cmd))
    $ps = Join-Path $env:SystemRoot 'System32\WindowsPowerShell\v1.0\powershell.exe'
    Start-Process -FilePath $ps -ArgumentList '-NoProfile', '-NonInteractive', '-EncodedCommand', $enc -WindowStyle Hidden -ErrorAction Stop | Out-Null
    "$Name (process $svcPid) restarts in $DelaySec s in a process of its own (its restart would cut this exec stream)"
}
function Test-WtsRestartCutsExec([string]$Name) {
    # A restart of the kubelet or the runtime cuts the exec stream of a HostProcess call.
    [bool]$env:CONTAINER_SANDBOX_MOUNT_POINT -and @('kubelet', 'containerd') -contains $Name
}
function Use-WtsHns([string]$Command) {
    # Makes an HNS command callable: the built-in HostNetworkingService module where
    # present, else the SDN scripts' modules, imported until the command exists
    # (hns.v2.psm1 exports Get-HnsNetwork and Get-HnsEndpoint, hns.psm1 Get-HNSPolicyList).
    # hns.v2.psm1 answers in schema v2 unless called with -Version 1, as SDN's
    # collectlogs.ps1 calls it, so where the command takes -Version it defaults to 1. A
    # command still missing fails at its call with PowerShell's own CommandNotFoundException.
    foreach ($m in 'HostNetworkingService', 'C:\k\hns.v2.psm1', 'C:\k\hns.psm1') {
        if (Get-Command $Command -ErrorAction SilentlyContinue) { break }
        if ($m -eq 'HostNetworkingService' -or (Test-Path $m)) { Import-Module $m -DisableNameChecking -ErrorAction SilentlyContinue }
    }
    $c = Get-Command $Command -ErrorAction SilentlyContinue
    if ($c -and $c.Parameters -and $c.Parameters.ContainsKey('Version')) { $global:PSDefaultParameterValues["${Command}:Version"] = 1 }
}
`

// prelude runs every call in a runspace of its own process, started with BeginInvoke and
// waited on with a bounded AsyncWaitHandle.WaitOne (System.Management.Automation.PowerShell,
// available since PowerShell 2.0), so a call that overruns is stopped and costs its own
// frame only. Calls share one runspace until one is abandoned; BeginStop does not wait,
// because a call blocked in native code may never return, and [Environment]::Exit ends
// the process at the end so no abandoned thread keeps the command running.
//
// Inside the call, native stderr (docker's and crictl's warnings arrive as
// NativeCommandError records) is a failure only when $LASTEXITCODE is non-zero, else it is
// kept as a note with the warnings (stream 3): in Windows PowerShell 5.1 every native
// stderr line becomes an error record even at exit 0 (about_Redirection).
const prelude = `# wts:sweep v1
$ProgressPreference = 'SilentlyContinue'
$ErrorActionPreference = 'Continue'
# Native tools print UTF-8, and PowerShell decodes their output with the console's encoding.
# Remotely the setter can throw "The handle is invalid"; frames are ASCII, so go on without.
try { [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false } catch { }
$WtsState = @{ Runspace = $null; Abandoned = $false; Helpers = @'
` + helpers + `'@ }
function ConvertTo-WtsBase64([string[]]$Lines, [string]$Sep) {
    [Convert]::ToBase64String((New-Object System.Text.UTF8Encoding $false).GetBytes(($Lines -join $Sep)))
}
function Invoke-WtsCall([string]$Name, [string]$Params, [int]$Limit, [scriptblock]$Body) {
    $p = @{}
    $json = (New-Object System.Text.UTF8Encoding $false).GetString([Convert]::FromBase64String($Params))
    (ConvertFrom-Json $json).psobject.Properties | ForEach-Object { $p[$_.Name] = $_.Value }
    if (-not $WtsState.Runspace) {
        $rs = [runspacefactory]::CreateRunspace()
        $rs.Open()
        $init = [PowerShell]::Create()
        $init.Runspace = $rs
        [void]$init.AddScript($WtsState.Helpers).Invoke()
        $init.Dispose()
        $WtsState.Runspace = $rs
    }
    # Lists, not arrays: a native tool can print thousands of stderr lines, each its own
    # error record, and += on an array copies it each time.
    $errs = New-Object System.Collections.Generic.List[string]
    $notes = New-Object System.Collections.Generic.List[string]
    $native = New-Object System.Collections.Generic.List[string]
    $out = @(); $code = 0
    $WtsState.Runspace.SessionStateProxy.SetVariable('LASTEXITCODE', 0)
    $ps = [PowerShell]::Create()
    $ps.Runspace = $WtsState.Runspace
    [void]$ps.AddScript($Body.ToString(), $true).AddParameters($p)
    $h = $ps.BeginInvoke()
    $ms = -1
    if ($Limit -gt 0) { $ms = 1000 * $Limit }
    if (-not $h.AsyncWaitHandle.WaitOne($ms)) {
        [void]$ps.BeginStop($null, $null)
        $WtsState.Runspace = $null
        $WtsState.Abandoned = $true
        $errs.Add("timed out after $Limit s ($Name ` + timedOutWhy + `)")
        $code = 1460
    } else {
        try { $out = @($ps.EndInvoke($h)) } catch {
            $e = $_.Exception
            if ($e -is [System.Management.Automation.MethodInvocationException] -and $e.InnerException) { $e = $e.InnerException }
            if ($e.ErrorRecord) { $errs.Add(($e.ErrorRecord | Out-String).Trim()) } else { $errs.Add([string]$e.Message) }
            $code = 1
        }
        foreach ($r in $ps.Streams.Error) {
            if ($r.FullyQualifiedErrorId -like 'NativeCommandError*') { $native.Add("$r") } else { $errs.Add(($r | Out-String).Trim()) }
        }
        foreach ($w in $ps.Streams.Warning) { $notes.Add("WARNING: $($w.Message)") }
        $last = $WtsState.Runspace.SessionStateProxy.GetVariable('LASTEXITCODE')
        if ($code -eq 0 -and $last) { $code = $last }
        if ($last) { $errs.AddRange($native) } else { $notes.AddRange($native) }
        if ($code -eq 0 -and $errs.Count) { $code = 1 }
        $ps.Dispose()
    }
    $text = @($out | ForEach-Object { if ($_ -is [string]) { $_ } else { ($_ | Out-String -Width 4096).TrimEnd() } })
    '@@WTS@@ {0} {1} {2} {3} {4}' -f $Name, $code, (ConvertTo-WtsBase64 $text "` + "`r`n" + `"),
        (ConvertTo-WtsBase64 $errs "` + "`n" + `"), (ConvertTo-WtsBase64 $notes "` + "`n" + `")
}
`

// epilogue ends the process when a call was abandoned, so its blocked thread cannot keep
// the remote command (and the client waiting on it) alive after the end marker.
const epilogue = `if ($WtsState.Abandoned) { [Console]::Out.Flush(); [Environment]::Exit(0) }
`

// Sweep joins calls into one script. Each call is framed so its output, error text and
// exit status come back on their own line, and one failing cmdlet never hides the others.
// Calls that can hang run after the others, in their given order.
func Sweep(calls []Call) (string, error) {
	// Every node of a fleet gets this script: build it in one pass into one buffer.
	type call struct {
		Call
		body  string
		hangs bool
	}
	ordered := make([]call, len(calls))
	size := len(prelude) + len(epilogue) + 64
	for i, c := range calls {
		body, err := Body(c.Name)
		if err != nil {
			return "", err
		}
		ordered[i] = call{c, strings.TrimRight(body, "\n"), strings.Contains(body, mayHangMarker)}
		size += len(body) + 2*len(c.Name) + 128
	}
	sort.SliceStable(ordered, func(i, j int) bool { return !ordered[i].hangs && ordered[j].hangs })
	var b strings.Builder
	b.Grow(size)
	b.WriteString(prelude)
	for _, c := range ordered {
		p64 := "e30=" // {}
		if len(c.Params) > 0 {
			pj, err := json.Marshal(c.Params)
			if err != nil {
				return "", fmt.Errorf("encoding parameters of %s: %w", c.Name, err)
			}
			p64 = base64.StdEncoding.EncodeToString(pj)
		}
		limit := strconv.Itoa(limitSeconds(EffectiveLimit(c.Call)))
		for _, s := range []string{"# wts:call ", c.Name, " ", p64, " ", limit, "\nInvoke-WtsCall -Name '", c.Name,
			"' -Params '", p64, "' -Limit ", limit, " -Body {\n", c.body, "\n}\n"} {
			b.WriteString(s)
		}
	}
	fmt.Fprintf(&b, "'%s END %d'\n", marker, len(calls))
	b.WriteString(epilogue)
	return b.String(), nil
}

// EffectiveLimit is the limit a call runs under: its own, else DefaultLimit for a snippet
// and none (0) for a fix.
func EffectiveLimit(c Call) time.Duration {
	switch {
	case c.Limit > 0:
		return c.Limit
	case strings.HasPrefix(c.Name, FixPrefix):
		return 0
	}
	return DefaultLimit
}

// ParseSweep recovers the calls from a sweep script (the fake node's side), in the order
// the script runs them, each with the Limit the script waits (0: none). ok is false when
// the text is not a sweep at all.
func ParseSweep(script string) (calls []Call, ok bool, err error) {
	if !strings.HasPrefix(strings.TrimLeft(script, "\ufeff \r\n"), "# wts:sweep v1") {
		return nil, false, nil
	}
	for _, m := range callLines(script) {
		pj, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			return nil, true, fmt.Errorf("call %s: parameters: %w", m[1], err)
		}
		var params map[string]any
		if err := json.Unmarshal(pj, &params); err != nil {
			return nil, true, fmt.Errorf("call %s: parameters: %w", m[1], err)
		}
		c := Call{Name: m[1], Params: params}
		if m[3] != "" {
			secs, _ := strconv.Atoi(m[3]) // at most 7 digits: cannot overflow
			c.Limit = time.Duration(secs) * time.Second
		}
		calls = append(calls, c)
	}
	return calls, true, nil
}

// callLines finds the "# wts:call NAME PARAMS [LIMIT]" lines of a sweep script, each as
// {line, NAME, PARAMS, LIMIT} (LIMIT "" when absent): the lines the regexp
// (?m)^# wts:call ([a-z0-9][a-z0-9.-]*) ([A-Za-z0-9+/=]*)(?: ([0-9]{1,7}))?\r?$ matches.
// A scan for the marker and a check of the few bytes after it: the fake fleet parses
// every script it is sent, and the regexp over a script of a hundred KB was most of its
// CPU per node.
func callLines(script string) [][]string {
	const mark = "# wts:call "
	var out [][]string
	for at := 0; at < len(script); {
		i := strings.Index(script[at:], mark)
		if i < 0 {
			break
		}
		start := at + i
		end := strings.IndexByte(script[start:], '\n')
		if end < 0 {
			end = len(script)
		} else {
			end += start
		}
		at = end + 1
		if start > 0 && script[start-1] != '\n' {
			continue
		}
		if m, ok := callLine(strings.TrimSuffix(script[start+len(mark):end], "\r")); ok {
			out = append(out, append([]string{script[start:end]}, m...))
		}
	}
	return out
}

// callLine reads "NAME PARAMS[ LIMIT]" as the regexp of callLines does.
func callLine(s string) ([]string, bool) {
	name, rest, ok := strings.Cut(s, " ")
	if !ok || name == "" || !isNameStart(name[0]) || strings.IndexFunc(name, func(r rune) bool { return !isNameStart(byte(r)) && r != '.' && r != '-' || r > 0x7f }) >= 0 {
		return nil, false
	}
	params, limit, hasLimit := strings.Cut(rest, " ")
	if strings.IndexFunc(params, func(r rune) bool { return !isBase64(r) }) >= 0 {
		return nil, false
	}
	if hasLimit && (limit == "" || len(limit) > 7 || strings.IndexFunc(limit, func(r rune) bool { return r < '0' || r > '9' }) >= 0) {
		return nil, false
	}
	return []string{name, params, limit}, true
}

func isNameStart(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func isBase64(r rune) bool {
	return 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '+' || r == '/' || r == '='
}
