package decode

import (
	"strings"
	"testing"
	"unicode/utf16"
)

func utf16BE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}

// UTF-16BE without a BOM is valid UTF-8 (NUL is a character), so before it failed later
// as "invalid character '\x00'" in JSON with no word about the encoding.
func TestTextNamesBOMLessUTF16BE(t *testing.T) {
	for name, b := range map[string][]byte{
		"even length": utf16BE(`{"Name":"vEthernet (nat)"}`),
		"odd length":  append(utf16BE(`{"Name":"x"}`), 0),
	} {
		_, err := Text("nodes/win-1/host.json", b)
		if err == nil || !strings.Contains(err.Error(), "looks like UTF-16BE without a byte-order mark; re-save as UTF-8") ||
			!strings.HasPrefix(err.Error(), "nodes/win-1/host.json: ") {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := Values("nodes/win-1/host.json", b); err == nil || !strings.Contains(err.Error(), "UTF-16BE") {
			t.Errorf("%s: Values: %v", name, err)
		}
	}
	// With its BOM, UTF-16BE decodes; plain text with a NUL somewhere is not taken for it.
	if got, err := Text("f", append([]byte{0xFE, 0xFF}, utf16BE("ok")...)); err != nil || string(got) != "ok" {
		t.Errorf("UTF-16BE with BOM: %q, %v", got, err)
	}
	if got, err := Text("f", []byte("ab\x00cd")); err != nil || string(got) != "ab\x00cd" {
		t.Errorf("text with one NUL: %q, %v", got, err)
	}
}
