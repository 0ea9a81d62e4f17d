package scripts

import (
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The Linux sweep (POSIX sh) is the Windows sweep's twin: the same frames, one remote
// command per node, each call under its own time limit (coreutils timeout). Its prelude
// and fix bodies are embedded shell; the calls are the table below.
//
//go:embed linux/sweep.sh linux/fixes/*.sh
var linuxFS embed.FS

// LinuxDefaultLimit bounds one Linux call: each is one command reading kernel state or
// a file, so ten seconds is already a hung node (an NFS mount, a wedged systemd).
const LinuxDefaultLimit = 10 * time.Second

// linuxCall is how the sweep produces one evidence file: the wts_call option ("-",
// "partial" or a filter function of the prelude) and the command's words, written into
// the script verbatim (constants: no value from outside reaches this text).
type linuxCall struct {
	name, opt, command string
}

// linuxCalls is the contract's Linux table (docs: the contract file), in sweep order.
// Configuration files are read with head -c: a file grown by mistake stays bounded.
var linuxCalls = []linuxCall{
	{"os.json", "wts_os_json", "uname -r"},
	// iproute-*: where ip has no -j (CentOS 7), the JSON is made from its text (sweep.sh).
	{"linux-ip-route.json", "iproute-route", "ip -j route show table main"},
	{"linux-ip-addr.json", "iproute-addr", "ip -j addr show"},
	{"linux-ip-link.json", "iproute-link", "ip -j -d link show"},
	// The glob stays literal when the folder is empty or absent, and head then says so.
	{"linux-cni.txt", "-", "head -v -c 65536 /etc/cni/net.d/*"},
	{"linux-swaps.txt", "-", "cat /proc/swaps"},
	// A key that is missing (br_netfilter not loaded) is a note: the other is evidence.
	{"linux-sysctl.txt", "partial", "sysctl net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables"},
	{"linux-systemd.txt", "-", "systemctl show -p Id,ActiveState,SubState,UnitFileState containerd kubelet kube-proxy flanneld"},
	{"linux-cmdlines.txt", "wts_components", "ps -eo pid=,args="},
	{"linux-kubelet-config.yaml", "-", `head -c 1048576 "$(wts_config kubelet /var/lib/kubelet/config.yaml)"`},
	{"linux-kube-proxy-config.yaml", "-", `head -c 1048576 "$(wts_config kube-proxy /var/lib/kube-proxy/kube-proxy-config.yaml)"`},
	{"linux-containerd-config.toml", "-", "head -c 1048576 /etc/containerd/config.toml"},
	{"linux-flannel-subnet.env", "-", "head -c 65536 /run/flannel/subnet.env"},
}

// LinuxFiles lists the node evidence files the Linux sweep produces, in sweep order.
func LinuxFiles() []string {
	out := make([]string, len(linuxCalls))
	for i, c := range linuxCalls {
		out[i] = c.name
	}
	return out
}

// IsLinuxFile says whether the Linux sweep produces the named file (and the Windows
// sweep therefore does not).
func IsLinuxFile(name string) bool {
	return slices.ContainsFunc(linuxCalls, func(c linuxCall) bool { return c.name == name })
}

// LinuxCommand is the command a Linux call runs, for the contract table and help.
func LinuxCommand(name string) (string, bool) {
	for _, c := range linuxCalls {
		if c.name == name {
			return c.command, true
		}
	}
	return "", false
}

// LinuxFixes lists the Linux fix script names (fix-...), sorted.
func LinuxFixes() []string {
	entries, _ := fs.ReadDir(linuxFS, "linux/fixes")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".sh"))
	}
	return out
}

// LinuxFixBody is the shell source of a Linux fix.
func LinuxFixBody(name string) (string, error) {
	if !validName(name) || !strings.HasPrefix(name, FixPrefix) {
		return "", fmt.Errorf("fix name %q for a Linux node: want fix- then lower-case letters, digits, '.' and '-'", name)
	}
	b, err := linuxFS.ReadFile("linux/fixes/" + name + ".sh")
	if err != nil {
		return "", fmt.Errorf("no Linux fix script named %q", name)
	}
	return string(b), nil
}

// LinuxPrelude is the sweep's shell prelude: the framing and helper functions.
func LinuxPrelude() string {
	b, _ := linuxFS.ReadFile("linux/sweep.sh") // embedded: cannot fail
	return string(b)
}

// LinuxSweep is the shell script sweeping the named Linux evidence files, each under
// limit (0: LinuxDefaultLimit). An unknown name is an error, as for the Windows sweep.
func LinuxSweep(names []string, limit time.Duration) (string, error) {
	if limit <= 0 {
		limit = LinuxDefaultLimit
	}
	var b strings.Builder
	b.WriteString(LinuxPrelude())
	for _, n := range names {
		i := slices.IndexFunc(linuxCalls, func(c linuxCall) bool { return c.name == n })
		if i < 0 {
			return "", fmt.Errorf("no Linux sweep call produces %q (want one of %s)", n, strings.Join(LinuxFiles(), ", "))
		}
		c := linuxCalls[i]
		fmt.Fprintf(&b, "wts_call %s %d %s %s\n", c.name, limitSeconds(limit), c.opt, c.command)
	}
	b.WriteString("wts_end\n")
	return b.String(), nil
}

// paramName is what a fix parameter may be called: it becomes the shell variable p_NAME.
var paramName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// LinuxFix is the script that runs one Linux fix: the prelude, its parameters as base64
// data decoded into p_NAME variables, and its body as `sh -c`, framed like a sweep call.
// A limit of 0 means none (timeout 0 disables itself), as for a Windows fix.
func LinuxFix(c Call) (string, error) {
	body, err := LinuxFixBody(c.Name)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(c.Params))
	for k := range c.Params {
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(LinuxPrelude())
	for _, k := range names {
		if !paramName.MatchString(k) {
			return "", fmt.Errorf("fix %s: parameter name %q: want a letter, then letters, digits or _", c.Name, k)
		}
		v, err := shellValue(c.Params[k])
		if err != nil {
			return "", fmt.Errorf("fix %s: parameter %s: %w", c.Name, k, err)
		}
		fmt.Fprintf(&b, "wts_param %s %s\n", k, base64.StdEncoding.EncodeToString([]byte(v)))
	}
	fmt.Fprintf(&b, "wts_call %s %d - sh -c %s sh\nwts_end\n", c.Name, limitSeconds(c.Limit), shellQuote(body))
	return b.String(), nil
}

// shellValue is a parameter as the text a shell fix reads: a string, number or boolean
// as it is; a list one element per line, an element that is an object giving its values
// in key order, tab-separated (`while IFS=$tab read -r a b`). Inside a list, a value may
// hold neither a tab nor a newline: it would shift the fields.
func shellValue(v any) (string, error) {
	scalar := func(v any, inList bool) (string, error) {
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case bool, float64, int, int64:
			s = fmt.Sprint(x)
		default:
			return "", fmt.Errorf("a %T; a Linux fix takes strings, numbers, booleans and lists of them or of objects of them", v)
		}
		if inList && strings.ContainsAny(s, "\t\n") {
			return "", fmt.Errorf("list value %q holds a tab or a newline", s)
		}
		return s, nil
	}
	list, ok := v.([]any)
	if !ok {
		return scalar(v, false)
	}
	lines := make([]string, 0, len(list))
	for _, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			line, err := scalar(e, true)
			if err != nil {
				return "", err
			}
			lines = append(lines, line)
			continue
		}
		var fields []string
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			f, err := scalar(obj[k], true)
			if err != nil {
				return "", fmt.Errorf("%s: %w", k, err)
			}
			fields = append(fields, f)
		}
		lines = append(lines, strings.Join(fields, "\t"))
	}
	return strings.Join(lines, "\n"), nil
}

// shellQuote single-quotes s for sh: inside single quotes nothing is special but the
// quote itself, which is closed, escaped and reopened.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// LinuxCommandLine is the remote command of a Linux sweep or fix: sh reading the script
// from stdin, through `sudo -n` for an account other than root (-n: a sudo that would ask
// for a password fails at once, saying so, instead of waiting on a prompt nobody sees).
func LinuxCommandLine(user string) string {
	if user == "" || user == "root" {
		return "sh -s"
	}
	return "sudo -n sh -s"
}

// linuxCallLine is a call line of a Linux script, as LinuxSweep and LinuxFix write it.
var linuxCallLine = regexp.MustCompile(`(?m)^wts_call ([a-z0-9][a-z0-9.-]*) ([0-9]{1,7}) `)

// linuxParamLine is a parameter line of a Linux fix.
var linuxParamLine = regexp.MustCompile(`(?m)^wts_param ([A-Za-z][A-Za-z0-9_]*) ([A-Za-z0-9+/=]*)$`)

// ParseLinuxSweep recovers the calls of a Linux sweep or fix script (the fake node's
// side), with their limits and a fix's parameters. ok is false when the text is not one.
func ParseLinuxSweep(script string) (calls []Call, ok bool, err error) {
	if !strings.HasPrefix(script, "# wts:linux-sweep v1\n") {
		return nil, false, nil
	}
	params := map[string]any{}
	for _, m := range linuxParamLine.FindAllStringSubmatch(script, -1) {
		v, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			return nil, true, fmt.Errorf("parameter %s: %w", m[1], err)
		}
		params[m[1]] = string(v)
	}
	for _, m := range linuxCallLine.FindAllStringSubmatch(script, -1) {
		secs, _ := strconv.Atoi(m[2]) // at most 7 digits: cannot overflow
		c := Call{Name: m[1], Limit: time.Duration(secs) * time.Second}
		if strings.HasPrefix(c.Name, FixPrefix) {
			c.Params = params
		}
		calls = append(calls, c)
	}
	return calls, true, nil
}
