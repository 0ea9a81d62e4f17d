package scripts

import (
	"regexp"
	"strings"
	"testing"
)

// No PowerShell runs here, so these hold the scripts to the guards that keep them from
// doing harm on a real node; each names what it guards against.

// code is a script without its comment lines.
func code(t *testing.T, name string) string {
	t.Helper()
	b, err := Body(name)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(b, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// TestRestartHNSKillsOnlyAStuckStop: fix-restart-hns ends HNS's process by force only while
// HNS is StopPending and its service still owns the process ID read at the start; an HNS
// that stopped but did not start has no process, and the old ID may be another program's.
func TestRestartHNSKillsOnlyAStuckStop(t *testing.T) {
	c := code(t, "fix-restart-hns")
	kill := strings.Index(c, "Stop-Process -Id $hnsPid")
	if kill < 0 {
		t.Fatal("fix-restart-hns no longer ends HNS's process: update this test")
	}
	guard := regexp.MustCompile(`if \(\$hnsPid -le 0 -or \$status -ne 'StopPending' -or \[int\]\$now\.ProcessId -ne \$hnsPid\) \{ throw \}`)
	g := guard.FindStringIndex(c)
	if g == nil || g[0] > kill {
		t.Fatalf("Stop-Process is not guarded by StopPending and the same process ID:\n%s", c)
	}
	if !strings.Contains(c[:g[0]], "$status = (Get-Service -Name hns).Status") ||
		!strings.Contains(c[:g[0]], `$now = Get-CimInstance -ClassName Win32_Service -Filter "Name='hns'"`) {
		t.Fatalf("the guard does not read HNS's state after the failed restart:\n%s", c)
	}
}

// TestServicesListNoNullEnvironment: a service without AppEnvironmentExtra is an empty
// list, not @($null) (one null entry, which reads as an environment of one empty value).
func TestServicesListNoNullEnvironment(t *testing.T) {
	c := code(t, "services.json")
	if strings.Contains(c, "AppEnvironmentExtra = @($extra)") || !strings.Contains(c, "@($extra | Where-Object { $null -ne $_ })") {
		t.Fatalf("services.json wraps a missing AppEnvironmentExtra in @():\n%s", c)
	}
}

// TestSandboxImageKeepsEncoding: fix-sandbox-image reads config.toml as UTF-8 (not the
// ANSI code page, Get-Content's default in Windows PowerShell 5.1) and writes it back as
// UTF-8 with its BOM only if it had one, so non-ASCII text is not double-encoded.
func TestSandboxImageKeepsEncoding(t *testing.T) {
	c := code(t, "fix-sandbox-image")
	for _, want := range []string{"$text = Read-WtsText $f", "[IO.File]::WriteAllText($f, $new, (New-Object System.Text.UTF8Encoding $bom))"} {
		if !strings.Contains(c, want) {
			t.Errorf("fix-sandbox-image lacks %q:\n%s", want, c)
		}
	}
	if !strings.Contains(helpers, "[System.IO.File]::ReadAllText(") {
		t.Error("Read-WtsText no longer reads with ReadAllText (UTF-8 unless a BOM says otherwise)")
	}
}

// TestRestartsThatCutTheExecRunDetached: through a HostProcess pod, the fixes that
// restart the kubelet or containerd do it in a process of their own, since the restart
// ends the exec stream the call runs in (the fix would read as failed although it worked).
func TestRestartsThatCutTheExecRunDetached(t *testing.T) {
	for name, want := range map[string]string{
		"fix-restart-service": "if (Test-WtsRestartCutsExec $n) { Restart-WtsServiceDetached -Name $n; continue }",
		"fix-sandbox-image":   "if (Test-WtsRestartCutsExec 'containerd') { Restart-WtsServiceDetached -Name containerd }",
	} {
		if c := code(t, name); !strings.Contains(c, want) {
			t.Errorf("%s restarts in its own exec stream:\n%s", name, c)
		}
	}
	for _, want := range []string{"$env:CONTAINER_SANDBOX_MOUNT_POINT -and @('kubelet', 'containerd') -contains $Name", "Start-Process -FilePath $ps"} {
		if !strings.Contains(helpers, want) {
			t.Errorf("the helpers lack %q", want)
		}
	}
}
