package foreign

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
)

// mapper maps the files of one bundle root.
type mapper struct {
	*mapped
	files map[string][]byte // loaded, by path relative to the root
	rels  []string          // every file under the root
	gave  map[string]bool   // files that gave evidence
	tried map[string]string // files read that gave none, and why
}

// placeholder is the node name the importer is given; its files are moved under the
// real node once every bundle of the input is read.
const placeholder = "foreign-node"

// text is a file as UTF-8 (collectors write UTF-16LE with a BOM through `>` in Windows
// PowerShell 5.1, ASCII through -Encoding ascii, UTF-8 elsewhere).
func (m *mapper) text(rel string) ([]byte, bool) {
	b, ok := m.files[rel]
	if !ok {
		return nil, false
	}
	t, err := decode.Text(rel, b)
	if err != nil {
		m.tried[rel] = "not text: " + err.Error()
		return nil, false
	}
	return t, true
}

// put stores evidence once its key's decoder accepts it.
func (m *mapper) put(key evidence.Ref, b []byte, from string) bool {
	meta := key.Meta()
	if err := key.Validate(key.Path(placeholder), b); err != nil {
		if _, ok := m.tried[from]; !ok {
			m.tried[from] = fmt.Sprintf("not valid %s: %v", meta.Name, err)
		}
		return false
	}
	if meta.Scope == evidence.Cluster {
		m.cluster[meta.Name] = b
	} else {
		m.node[meta.Name] = b
	}
	m.gave[from] = true
	delete(m.tried, from)
	return true
}

// raw stores a file as it is (a CNI config, containerd's TOML, a kubelet config).
func (m *mapper) raw(rel string, key evidence.Ref) bool {
	b, ok := m.files[rel]
	if !ok {
		return false
	}
	return m.put(key, b, rel)
}

// jsonPart is the JSON that follows a table in one file: collectlogs.ps1 writes
// `Select ... > network.txt` and then appends `ConvertTo-Json >> network.txt`, so the
// JSON starts at the first line opening with '[' or '{'.
func jsonPart(t []byte) []byte {
	for off := 0; off < len(t); {
		line := t[off:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		if l := bytes.TrimSpace(line); len(l) > 0 && (l[0] == '[' || l[0] == '{') && len(line)-len(bytes.TrimLeft(line, " \t")) == 0 {
			return t[off:]
		}
		off += len(line) + 1
	}
	return nil
}

// putJSON stores the JSON part of a file; a file without any (the collector's HNS
// query failed on the node, its error went to the console) gives nothing, not an empty list.
func (m *mapper) putJSON(key evidence.Ref, rel string, conv func(string, []byte) ([]byte, bool, error)) bool {
	t, ok := m.text(rel)
	if !ok {
		return false
	}
	j := jsonPart(t)
	if len(bytes.TrimSpace(j)) == 0 {
		m.tried[rel] = "no JSON in it: the command failed on the node, or found nothing (an empty list is not told from a failure)"
		return false
	}
	if conv != nil {
		c, v2, err := conv(rel, j)
		if err != nil {
			m.tried[rel] = err.Error()
			return false
		}
		if v2 && key.Meta().Name == evidence.FileHNSEndpoints {
			m.b.Notes = append(m.b.Notes, evidence.FileHNSEndpoints+" from "+rel+": schema v2 endpoints carry no State, so an endpoint stuck in removal is not seen")
		}
		j = c
	}
	return m.put(key, j, rel)
}

// splitOutputs cuts a file several commands wrote one after another (`a > f; b >> f`)
// where each later command's output starts: the first line matching its pattern. Parts
// whose start is not found are empty.
func splitOutputs(t []byte, starts ...*regexp.Regexp) [][]byte {
	out := make([][]byte, len(starts)+1)
	rest, idx := t, 0
	for i, re := range starts {
		loc := re.FindIndex(rest)
		if loc == nil {
			continue
		}
		out[idx] = rest[:loc[0]]
		rest, idx = rest[loc[0]:], i+1
	}
	out[idx] = rest
	return out
}

// pasteParts imports the parts of one file, each with the command that printed it.
func (m *mapper) pasteParts(rel string, parts [][]byte, commands []string) {
	var inputs []importer.Input
	for i, p := range parts {
		if len(bytes.TrimSpace(p)) == 0 || i >= len(commands) {
			continue
		}
		inputs = append(inputs, importer.Input{Name: rel, Data: append([]byte("PS C:\\> "+commands[i]+"\n"), p...)})
	}
	m.importInputs(inputs)
}

// pasted is one file of console text and the command that printed it ("" when the
// file holds several commands' output one after another: the importer cuts it by shape).
type pasted struct{ rel, command string }

// paste runs the paste importer over console text, all files in one import so that
// blocks of one evidence file merge (sc queryex and sc qc of one service).
func (m *mapper) paste(files ...pasted) {
	var inputs []importer.Input
	for _, f := range files {
		t, ok := m.text(f.rel)
		if !ok {
			continue
		}
		if f.command != "" {
			t = append([]byte("PS C:\\> "+f.command+"\n"), t...)
		}
		inputs = append(inputs, importer.Input{Name: f.rel, Data: t})
	}
	m.importInputs(inputs)
}

// importInputs runs the importer and keeps what it gives, noting what each file lacked.
func (m *mapper) importInputs(inputs []importer.Input) {
	if len(inputs) == 0 {
		return
	}
	res, err := importer.Import(inputs, importer.Options{Node: placeholder})
	if err != nil {
		for _, in := range inputs {
			m.tried[in.Name] = "console text the importer refused: " + err.Error()
		}
		return
	}
	prefix := "nodes/" + placeholder + "/"
	for p, b := range res.Files {
		if name, ok := strings.CutPrefix(p, prefix); ok {
			m.node[name] = b
		} else {
			m.cluster[p] = b
		}
	}
	for _, blk := range res.Report.Blocks {
		if blk.Evidence != "" {
			m.gave[blk.Source] = true
			delete(m.tried, blk.Source)
			if fields := missingFields(blk); fields != "" {
				m.b.Notes = append(m.b.Notes, fmt.Sprintf("%s from %s: %s not in it", strings.TrimPrefix(blk.Evidence, prefix), blk.Source, fields))
			}
			continue
		}
		if !m.gave[blk.Source] && blk.Note != "" {
			if _, ok := m.tried[blk.Source]; !ok {
				m.tried[blk.Source] = blk.Recognized + ": " + blk.Note
			}
		}
	}
	for _, in := range inputs {
		if !m.gave[in.Name] {
			if _, ok := m.tried[in.Name]; !ok {
				m.tried[in.Name] = "console text with no output the importer reads"
			}
		}
	}
}

func missingFields(b importer.BlockReport) string {
	seen := map[string]bool{}
	var out []string
	for _, mi := range b.Missing {
		if !seen[mi.Field] {
			seen[mi.Field] = true
			out = append(out, mi.Field)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// known marks a file read for what it says about the bundle (its version, its node)
// rather than for evidence.
func (m *mapper) known(rel, why string) {
	if _, ok := m.files[rel]; ok && !m.gave[rel] {
		m.tried[rel] = why
	}
}

// tail keeps the last n lines of a log.
func tail(b []byte, n int) []byte {
	b = bytes.TrimRight(b, "\r\n")
	for i, cnt := len(b)-1, 0; i >= 0; i-- {
		if b[i] == '\n' {
			if cnt++; cnt == n {
				return append(b[i+1:len(b):len(b)], '\n')
			}
		}
	}
	if len(b) == 0 {
		return b
	}
	return append(b[:len(b):len(b)], '\n')
}

// log stores a log file as the key's evidence (decode.Text gives UTF-8).
func (m *mapper) log(rel string, key evidence.Ref, lines int) bool {
	t, ok := m.text(rel)
	if !ok {
		return false
	}
	if lines > 0 {
		t = tail(t, lines)
	}
	return m.put(key, t, rel)
}
