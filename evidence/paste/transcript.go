package paste

import "strings"

// Block is one command's output in a transcript: the command when a prompt line showed
// it, and the lines up to the next prompt.
type Block struct {
	Command string // "" when the paste had no prompt line for it
	Host    string // the remoting prefix's computer ([win-1]: PS C:\>), when there is one
	Lines   []Line
}

// prompt reports whether the line is a prompt and what it ran. Only PowerShell's
// remoting prefix names the node: a shell prompt's host is where kubectl ran.
func (p *Parser) prompt(l string) (cmd, host string, ok bool) {
	l = strings.TrimRight(l, " ")
	if m := p.psPrompt.FindStringSubmatch(l); m != nil {
		return strings.TrimSpace(m[2]), m[1], true
	}
	for _, re := range [...]interface{ FindStringSubmatch(string) []string }{p.cmdPrompt, p.shPrompt} {
		if m := re.FindStringSubmatch(l); m != nil && p.knownVerbs.MatchString(strings.TrimSpace(m[len(m)-1])) {
			return strings.TrimSpace(m[len(m)-1]), "", true
		}
	}
	if !strings.HasPrefix(l, " ") && p.bareCommand.MatchString(l) {
		return strings.TrimSpace(l), "", true
	}
	return "", "", false
}

// Canonical spells a command as kubectl would without the aliases people type
// ("k get no -owide", "kgno"), so the command decides the output's shape either way.
func (p *Parser) Canonical(cmd string) string {
	m := p.aliasCmd.FindStringSubmatch(cmd)
	if m == nil {
		return cmd
	}
	full := map[string]string{"k": "kubectl", "kg": "kubectl get", "kd": "kubectl describe",
		"kgno": "kubectl get nodes", "kgnowide": "kubectl get nodes -o wide", "kgnoow": "kubectl get nodes -o wide",
		"kdno": "kubectl describe nodes", "kgpo": "kubectl get pods", "kdpo": "kubectl describe pods",
		"kgev": "kubectl get events", "kge": "kubectl get events"}[m[1]]
	return full + cmd[len(m[1]):]
}

// Split cuts a transcript into blocks at its prompt lines. Text before the first prompt
// (or a paste without any) is one block without a command; Recognize splits such a
// block further by shape.
func (p *Parser) Split(text string) []Block {
	var out []Block
	cur := Block{}
	for _, l := range p.Lines(text) {
		if m := p.contPrompt.FindStringSubmatch(l.Text); m != nil && cur.Command != "" && len(cur.Lines) <= 2 {
			// PowerShell's continuation prompt: the lines since the command line are the
			// command's, cut by the console ("--kube-subnet-mgr\n=1").
			for _, c := range cur.Lines {
				cur.Command += strings.TrimRight(c.Text, " ")
			}
			cur.Command, cur.Lines = strings.TrimSpace(cur.Command+" "+strings.TrimSpace(m[1])), nil
			continue
		}
		if cmd, host, ok := p.prompt(l.Text); ok {
			if cur.Command != "" || !allBlank(cur.Lines) {
				out = append(out, cur)
			}
			cur = Block{Command: cmd, Host: host}
			continue
		}
		cur.Lines = append(cur.Lines, l)
	}
	if cur.Command != "" || !allBlank(cur.Lines) {
		out = append(out, cur)
	}
	return out
}

func allBlank(ls []Line) bool {
	for _, l := range ls {
		if !blank(l.Text) {
			return false
		}
	}
	return true
}

// Paragraphs splits lines at blank lines, keeping each paragraph's lines.
func Paragraphs(lines []Line) [][]Line {
	var out [][]Line
	var cur []Line
	for _, l := range lines {
		if blank(l.Text) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
