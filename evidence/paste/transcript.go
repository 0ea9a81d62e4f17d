package paste

import "strings"

// Block is one command's output in a transcript: the command when a prompt line showed
// it, and the lines up to the next prompt.
type Block struct {
	Command string // "" when the paste had no prompt line for it
	Host    string // the remoting prefix's computer ([win-1]: PS C:\>), when there is one
	Lines   []Line
}

// prompt reports whether the line is a prompt and what it ran.
func (p *Parser) prompt(l string) (cmd, host string, ok bool) {
	if m := p.psPrompt.FindStringSubmatch(l); m != nil {
		return strings.TrimSpace(m[2]), m[1], true
	}
	if m := p.cmdPrompt.FindStringSubmatch(l); m != nil && p.knownVerbs.MatchString(strings.TrimSpace(m[2])) {
		return strings.TrimSpace(m[2]), m[1], true
	}
	// A bash prompt's host is where kubectl ran (a Linux machine), not the node.
	if m := p.shPrompt.FindStringSubmatch(l); m != nil && p.knownVerbs.MatchString(strings.TrimSpace(m[2])) {
		return strings.TrimSpace(m[2]), "", true
	}
	return "", "", false
}

// Split cuts a transcript into blocks at its prompt lines. Text before the first prompt
// (or a paste without any) is one block without a command; Recognize splits such a
// block further by shape.
func (p *Parser) Split(text string) []Block {
	var out []Block
	cur := Block{}
	for _, l := range p.Lines(text) {
		if cmd, host, ok := p.prompt(l.Text); ok {
			if cur.Command != "" || !allBlank(cur.Lines) {
				out = append(out, cur)
			}
			cur = Block{Command: cmd, Host: host}
			continue
		}
		if m := p.contPrompt.FindStringSubmatch(l.Text); m != nil && cur.Command != "" && allBlank(cur.Lines) {
			cur.Command += " " + strings.TrimSpace(m[1])
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
