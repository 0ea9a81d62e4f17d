//go:build unix

package sweep_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

// pywinrmPython is Debian's interpreter with python3-winrm (pywinrm 0.3.0).
const pywinrmPython = "/usr/bin/python3"

// pywinrmSweep sweeps every port given on stdin's first line with pywinrm, 32 at once (a
// thread each), the way the comparison did: open a shell, run the sweep's command
// line, send the sweep script on stdin, read the output to the end, close the shell. It
// only collects (no framing, judging or report). pywinrm 0.3.0 has no send_command_input
// (0.4 added it), so the Send is built as that method builds it (winrm/protocol.py).
const pywinrmSweep = `
import base64, json, os, sys, uuid, warnings
from concurrent.futures import ThreadPoolExecutor
warnings.simplefilter('ignore')
from cryptography.hazmat.bindings.openssl.binding import Binding
Binding()  # MD4 for NTLM (OpenSSL 3 legacy provider)
import winrm
from winrm.protocol import Protocol
e = os.environ
ports = [int(p) for p in sys.stdin.readline().split()]
script = open(e['WTS_SCRIPT'], 'rb').read()
cmdline = e['WTS_CMD'].split(' ')

def send(p, shell_id, command_id, data):
    # In pieces that keep each envelope under the service's MaxEnvelopeSizekb (500 KB).
    step = 150 * 1024
    for at in range(0, len(data), step):
        msg = {'env:Envelope': p._get_soap_header(resource_uri='http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd',
            action='http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Send', shell_id=shell_id)}
        stream = {'@Name': 'stdin', '@CommandId': command_id, '#text': base64.b64encode(data[at:at+step]).decode()}
        if at + step >= len(data):
            stream['@End'] = 'true'
        msg['env:Envelope']['env:Body'] = {'rsp:Send': {'rsp:Stream': stream}}
        p.send_message(__import__('xmltodict').unparse(msg))

def sweep(port):
    p = Protocol('http://127.0.0.1:%d/wsman' % port, transport='ntlm', username=e['WTS_USER'], password=e['WTS_PASS'],
                 message_encryption='never', read_timeout_sec=60, operation_timeout_sec=50)
    shell = p.open_shell()
    cid = p.run_command(shell, cmdline[0], cmdline[1:], console_mode_stdin=False)
    send(p, shell, cid, script)
    out, err, code = p.get_command_output(shell, cid)
    p.cleanup_command(shell, cid)
    p.close_shell(shell)
    if b'@@WTS@@ END' not in out:
        sys.stderr.write('port %d: exit %s, stdout %r, stderr %r\n' % (port, code, out[:300], err[:300]))
        return -1
    return len(out)

with ThreadPoolExecutor(32) as ex:
    got = list(ex.map(sweep, ports))
print(json.dumps({'bytes': sum(g for g in got if g > 0), 'failed': sum(1 for g in got if g < 0)}))
`

// BenchmarkPywinrmSweep drives the same sweep script as --report over the same fake fleet
// with pywinrm, for the comparison: wall, CPU per node and peak RSS of the Python
// process (getrusage of the waited-for child), beside BenchmarkReportCommand's.
func BenchmarkPywinrmSweep(b *testing.B) {
	if _, err := exec.Command(pywinrmPython, "-c", "import winrm, xmltodict").CombinedOutput(); err != nil {
		b.Skip("no python3-winrm (apt-get install python3-winrm)")
	}
	for _, n := range []int{200, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchPywinrm(b, n) })
	}
}

func benchPywinrm(b *testing.B, n int) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	child := exec.Command(self)
	child.Env = append(os.Environ(), fleetEnv+"="+strconv.Itoa(n))
	child.Stderr = os.Stderr
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = child.Wait() }()
	var hello fleetHello
	if err := json.NewDecoder(bufio.NewReader(stdout)).Decode(&hello); err != nil {
		b.Fatalf("the fleet did not start: %v", err)
	}
	var calls []scripts.Call
	for _, name := range scripts.Snippets() {
		calls = append(calls, scripts.Call{Name: name})
	}
	script, err := scripts.Sweep(calls)
	if err != nil {
		b.Fatal(err)
	}
	path := b.TempDir() + "/sweep.ps1"
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		b.Fatal(err)
	}
	ports := make([]string, len(hello.Ports))
	for i, p := range hello.Ports {
		ports[i] = strconv.Itoa(p)
	}
	b.ResetTimer()
	var wall, cpu time.Duration
	var rss float64
	for range b.N {
		cmd := exec.Command(pywinrmPython, "-c", pywinrmSweep)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "WTS_USER=" + user, "WTS_PASS=" + password,
			"WTS_SCRIPT=" + path, "WTS_CMD=" + scripts.CommandLine()}
		cmd.Stdin = strings.NewReader(strings.Join(ports, " ") + "\n")
		cmd.Stderr = os.Stderr
		start := time.Now()
		out, err := cmd.Output()
		wall += time.Since(start)
		var res struct{ Bytes, Failed int }
		if err != nil || json.Unmarshal(out, &res) != nil || res.Failed > 0 {
			b.Fatalf("pywinrm: %v %s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = max(rss, float64(ru.Maxrss)/1024)
		}
	}
	b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n*b.N), "cpu-ms/node")
	b.ReportMetric(rss, "peak-rss-MiB")
}
