package fakenode

import (
	"fmt"
	"io"
	"slices"
	"strings"

	utilexec "k8s.io/utils/exec"
)

// A fake kubelet with OS "linux" is a Linux worker reached through a privileged pod
// (collect/transport/hostprocess linux.go): its Responder is a LinuxNode, and exec runs
// as in that pod's busybox container, strictly: only a command behind nsenter into the
// host's namespaces reaches the node's shell; anything else gets what the container
// runtime, busybox's nsenter or the host's sh would answer.

// linuxNsenter is the argv prefix that enters PID 1's mount, UTS, IPC, network and PID
// namespaces (kubectl-node-shell's nsenter --target 1 --mount --uts --ipc --net --pid --).
func linuxNsenter() []string {
	return []string{"nsenter", "-t", "1", "-m", "-u", "-i", "-n", "-p", "--"}
}

// os is the node's kubernetes.io/os.
func (k *Kubelet) os() string {
	if k.opts.OS == "" {
		return "windows"
	}
	return k.opts.OS
}

// linuxCommand decides an exec on the Linux node: commandLine is what the node's shell
// runs with the script on stdin ("sh -s"), for the Responder; done is true when the exec
// already ended here (the failure written to errw, the exit status returned as err).
func (k *Kubelet) linuxCommand(cmd []string, errw io.Writer) (commandLine string, done bool, err error) {
	fail := func(code int, format string, a ...any) (string, bool, error) {
		msg := fmt.Sprintf(format, a...)
		if errw != nil {
			_, _ = io.WriteString(errw, msg+"\n")
		}
		return "", true, utilexec.CodeExitError{Err: fmt.Errorf("exit status %d", code), Code: code}
	}
	prefix := linuxNsenter()
	if len(cmd) < len(prefix) || !slices.Equal(cmd[:len(prefix)], prefix) {
		if inBusybox(cmd[0]) {
			return fail(2, "fake kubelet %s: only commands behind %s are modelled in the privileged pod, not %q",
				k.opts.Name, strings.Join(prefix, " "), strings.Join(cmd, " "))
		}
		// runc finds no such program in the busybox image: containerd's words.
		return "", true, fmt.Errorf("failed to exec in container: failed to start exec: OCI runtime exec failed: "+
			"exec failed: unable to start container process: exec: %q: executable file not found in $PATH: unknown", cmd[0])
	}
	rest := cmd[len(prefix):]
	switch {
	case slices.Equal(rest, []string{"sh", "-s"}):
		return "sh -s", false, nil
	case len(rest) == 3 && rest[0] == "sh" && rest[1] == "-c":
		// The host's sh (dash on the scenarios' Debian nodes) runs the line.
		words := strings.Fields(rest[2])
		switch {
		case slices.Equal(words, []string{"sh", "-s"}):
			return "sh -s", false, nil
		case len(words) == 0:
			return "", true, nil
		}
		return fail(127, "sh: 1: %s: not found", words[0])
	case len(rest) == 0:
		return fail(1, "nsenter: no command given")
	case rest[0] == "sh":
		return fail(2, "fake kubelet %s: only `sh -s` and `sh -c LINE` are modelled behind nsenter, not %q", k.opts.Name, strings.Join(rest, " "))
	}
	// The host has no such program (the node's own commands go through its sh).
	return fail(127, "nsenter: can't execute '%s': No such file or directory", rest[0])
}

// inBusybox: programs the busybox image has (as applets on PATH), so the runtime would
// start them in the container, not on the host.
func inBusybox(prog string) bool {
	switch strings.TrimPrefix(strings.TrimPrefix(prog, "/bin/"), "/usr/bin/") {
	case "sh", "ash", "nsenter", "sleep", "cat", "ls", "echo", "chroot", "env", "true", "false":
		return true
	}
	return false
}
