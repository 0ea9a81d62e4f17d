package ssh

import (
	"bytes"
	"fmt"
	"strings"
)

// The transport reaches Linux workers as well as Windows nodes. Hints name the files
// and logs of the system that answered, told apart by sshd's version line: Windows
// OpenSSH announces "OpenSSH_for_Windows_9.5", a Linux sshd "OpenSSH_9.2p1 Debian-2+deb12u3".

// linuxServer says whether an sshd version line is not Windows OpenSSH's.
func linuxServer(version string) bool {
	return strings.HasPrefix(version, "SSH-") && !strings.Contains(version, "for_Windows")
}

// version is the server's SSH version line among the first bytes it sent, "" before it
// sent one.
func (c *bannerConn) version() string {
	c.mu.Lock()
	first := bytes.Clone(c.first)
	c.mu.Unlock()
	for line := range bytes.SplitSeq(first, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("SSH-")) {
			return strings.TrimRight(string(line), "\r")
		}
	}
	return ""
}

// osHints are the node-side commands and paths a hint names.
type osHints struct {
	log, sshdConfig, authorizedKeys, hostKey string
}

// hintsFor is the hint vocabulary of the sshd that sent version ("" unknown: Windows,
// the tool's first subject).
func hintsFor(version string) osHints {
	if linuxServer(version) {
		return osHints{
			log:            "journalctl -u ssh -u sshd -n 20",
			sshdConfig:     "/etc/ssh/sshd_config",
			authorizedKeys: "~USER/.ssh/authorized_keys (for root /root/.ssh/authorized_keys; PermitRootLogin must allow keys)",
			hostKey:        "ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub",
		}
	}
	return osHints{
		log:            "Get-WinEvent -LogName OpenSSH/Operational -MaxEvents 20",
		sshdConfig:     `C:\ProgramData\ssh\sshd_config`,
		authorizedKeys: `C:\Users\USER\.ssh\authorized_keys, or for administrators in C:\ProgramData\ssh\administrators_authorized_keys`,
		hostKey:        `ssh-keygen -lf C:\ProgramData\ssh\ssh_host_%s_key.pub`,
	}
}

// dropHint is what to try when the node closed the connection mid-command.
func (h osHints) dropHint() string {
	return "the node closed the connection mid-command: sshd restarted, the node rebooted or the network dropped; " +
		"rerun, and see " + h.log + " on the node"
}

// hostKeyCommand shows the host key of a type on the node.
func (h osHints) hostKeyCommand(keyName string) string { return fmt.Sprintf(h.hostKey, keyName) }
