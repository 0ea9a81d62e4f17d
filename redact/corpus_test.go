package redact

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/zricethezav/gitleaks/v8/detect"
	"golang.org/x/text/encoding/unicode"
	"sigs.k8s.io/yaml"
)

// corpusSecret is one secret to plant: the line that carries it and the secret values
// that must not come out (gitleaks' detector says which part of a sample is secret).
type corpusSecret struct {
	rule    string
	line    string
	secrets []string
}

// gitleaksCorpus is every true positive of gitleaks' rules that gitleaks' own detector
// (the default config) finds a secret in, with the secrets it finds. Samples it finds
// nothing in (a rule that also needs a file path, a sample made for another rule of the
// same function) are counted, not used.
func gitleaksCorpus(t *testing.T) ([]corpusSecret, map[string]int) {
	samples, st := gitleaksSamples(t)
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	stats := map[string]int{"rule functions": st.funcs, "literal samples": st.literal, "generated samples": st.generated, "samples not evaluable": st.skipped}
	var out []corpusSecret
	rules := map[string]bool{}
	perRule := map[string]int{}
	for _, s := range samples {
		// utils.GenerateSampleSecrets writes one secret in some thirty notations; a
		// dozen per rule keeps the test in seconds and every notation still occurs
		// across the rules.
		if perRule[s.rule]++; perRule[s.rule] > maxSamplesPerRule {
			stats["samples beyond the cap per rule"]++
			continue
		}
		if strings.ContainsAny(s.text, "\x00") {
			continue
		}
		var secrets []string
		for _, f := range d.DetectString(s.text) {
			// Decoded findings (a secret inside base64) have a secret that is not in the
			// text; what must go is the encoded match.
			sec := f.Secret
			if !strings.Contains(s.text, sec) {
				sec = f.Match
			}
			if strings.Contains(s.text, sec) && len(sec) >= 8 {
				secrets = append(secrets, sec)
				rules[f.RuleID] = true
			}
		}
		if len(secrets) == 0 {
			stats["samples gitleaks finds nothing in"]++
			continue
		}
		// One planted line per sample: multi-line samples (PEM keys) stay whole in the
		// formats that can hold them.
		out = append(out, corpusSecret{rule: s.rule, line: s.text, secrets: secrets})
	}
	stats["samples used"] = len(out)
	stats["rules covered"] = len(rules)
	return out, stats
}

// maxSamplesPerRule bounds the samples taken from one rule function.
const maxSamplesPerRule = 12

// placement puts a sample into one evidence format; check says whether what came out
// still has that format's structure.
type placement struct {
	name  string
	file  string
	plant func(line string) []byte
	check func(out []byte) error
	// decode turns the output back into text to look for secrets in (UTF-16 files).
	decode func(out []byte) string
}

func klog(line string) string {
	return "I0301 08:13:02.702388    2904 kubelet.go:2092] " + line
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func placements() []placement {
	utf16 := func(bom bool) placement {
		form := utf16Form{unicode.LittleEndian, bom}
		name := "utf-16le"
		if !bom {
			name += "-no-bom"
		}
		return placement{name: name, file: "startup.log", plant: func(l string) []byte {
			return toUTF16([]byte("Starting node setup\r\n"+strings.ReplaceAll(l, "\n", "\r\n")+"\r\nSetup done\r\n"), form)
		}, check: func(out []byte) error {
			if f, ok := sniffUTF16(out); !ok || f != form {
				return fmt.Errorf("no longer UTF-16 (%v)", f)
			}
			return nil
		}, decode: func(out []byte) string {
			u, _, _ := fromUTF16(out)
			return string(u)
		}}
	}
	validJSON := func(out []byte) error {
		if !json.Valid(out) {
			return fmt.Errorf("not valid JSON")
		}
		return nil
	}
	return []placement{
		{name: "text-log", file: "kubelet.log", plant: func(l string) []byte {
			return []byte(klog("starting") + "\n" + klog(l) + "\n" + klog("done") + "\n")
		}},
		{name: "json", file: "env.json", plant: func(l string) []byte {
			return []byte(`{"items":[{"name":"note","value":` + jsonString(l) + `}],"ok":true}`)
		}, check: validJSON},
		{name: "json-in-log-line", file: "kubelet.log", plant: func(l string) []byte {
			return []byte(klog(`"Observed object" obj={"kind":"ConfigMap","data":{"note":`+jsonString(l)+`}}`) + "\n")
		}, check: func(out []byte) error {
			s := string(out)
			i := strings.Index(s, "obj=")
			if i < 0 || !json.Valid([]byte(strings.TrimSpace(s[i+4:]))) {
				return fmt.Errorf("the JSON in the log line is no longer valid: %q", s)
			}
			return nil
		}},
		{name: "json-that-does-not-parse", file: "hns.json", plant: func(l string) []byte {
			return []byte("Get-HnsNetwork : The term is not recognized\r\n" + l + "\r\n")
		}},
		{name: "yaml", file: "config.yaml", plant: func(l string) []byte {
			var b strings.Builder
			b.WriteString("apiVersion: v1\nkind: ConfigMap\ndata:\n  quoted: " + jsonString(l) + "\n  block: |\n")
			for _, x := range strings.Split(l, "\n") {
				b.WriteString("    " + x + "\n")
			}
			return []byte(b.String())
		}, check: func(out []byte) error {
			var v map[string]any
			return yaml.Unmarshal(out, &v)
		}},
		{name: "toml", file: "config.toml", plant: func(l string) []byte {
			return []byte("version = 2\n[plugins.note]\n  quoted = " + jsonString(l) + "\n  literal = '''\n" + l + "\n'''\n")
		}, check: func(out []byte) error {
			var v map[string]any
			_, err := toml.Decode(string(out), &v)
			return err
		}},
		utf16(true),
		utf16(false),
		{name: "pasted-transcript", file: "pasted.txt", plant: func(l string) []byte {
			return []byte("PS C:\\Users\\Administrator> Get-Content C:\\k\\kubelet.log -Tail 3\r\n" + strings.ReplaceAll(l, "\n", "\r\n") + "\r\nPS C:\\Users\\Administrator> \r\n")
		}},
	}
}

// TestCorpusGitleaksSamples plants every gitleaks true positive into every evidence
// format, redacts it as intake does, and requires that no secret gitleaks finds in the
// sample comes out and the format's structure survives.
func TestCorpusGitleaksSamples(t *testing.T) {
	corpus, stats := gitleaksCorpus(t)
	r := Default()
	leaks, broken := map[string][]string{}, map[string][]string{}
	unplantable := map[string]int{}
	places := placements()
	for _, c := range corpus {
		for _, p := range places {
			in := p.plant(c.line)
			if p.check != nil && p.check(in) != nil {
				unplantable[p.name]++ // the sample cannot be written in this format (a tab in YAML)
				continue
			}
			out := r.Bytes(p.file, in)
			text := string(out)
			if p.decode != nil {
				text = p.decode(out)
			}
			for _, s := range c.secrets {
				if strings.Contains(text, s) || strings.Contains(text, strings.Trim(jsonString(s), `"`)) {
					leaks[p.name] = append(leaks[p.name], fmt.Sprintf("%s: %q", c.rule, s))
					break
				}
			}
			if p.check != nil {
				if err := p.check(out); err != nil {
					broken[p.name] = append(broken[p.name], fmt.Sprintf("%s: %v", c.rule, err))
				}
			}
		}
	}
	stats["placements"] = len(corpus) * len(places)
	t.Logf("gitleaks corpus: %v, formats %d, not plantable %v", stats, len(places), unplantable)
	report := func(what string, m map[string][]string) {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v := m[k]
			t.Errorf("%s in %s: %d, e.g. %s", what, k, len(v), strings.Join(v[:min(len(v), 5)], "; "))
		}
	}
	report("leaks", leaks)
	report("structure broken", broken)
}
