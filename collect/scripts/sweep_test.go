package scripts

import (
	"strings"
	"testing"
	"time"
)

// TestSweepRunsHangProneCallsLast: HNS and runtime snippets declare they can hang and run
// after every other snippet, so a hung one cannot delay the rest; each call carries the
// limit the script waits, which ParseSweep reads back for the fake node.
func TestSweepRunsHangProneCallsLast(t *testing.T) {
	script, err := Sweep([]Call{
		{Name: "hns-networks.json"}, {Name: "images.json", Limit: 3 * time.Second},
		{Name: "host.json"}, {Name: "containers.json"}, {Name: "routes.json", Limit: 1500 * time.Millisecond},
		{Name: "fix-start-service"},
	})
	if err != nil {
		t.Fatal(err)
	}
	calls, ok, err := ParseSweep(script)
	if err != nil || !ok {
		t.Fatalf("%v %v", ok, err)
	}
	var order []string
	limits := map[string]time.Duration{}
	for _, c := range calls {
		order = append(order, c.Name)
		limits[c.Name] = c.Limit
	}
	want := "host.json routes.json fix-start-service hns-networks.json images.json containers.json"
	if strings.Join(order, " ") != want {
		t.Fatalf("order %v, want %s", order, want)
	}
	if limits["images.json"] != 3*time.Second || limits["routes.json"] != 2*time.Second ||
		limits["host.json"] != DefaultLimit || limits["fix-start-service"] != 0 {
		t.Fatalf("limits %v", limits)
	}
	if !strings.Contains(script, "Invoke-WtsCall -Name 'images.json' -Params 'e30=' -Limit 3 -Body {") {
		t.Fatal("the script does not pass the limit to Invoke-WtsCall")
	}
	for _, n := range []string{"hns-networks.json", "hns-endpoints.json", "hns-policylists.json", "images.json", "containers.json"} {
		if !MayHang(n) {
			t.Errorf("%s does not declare that it can hang", n)
		}
	}
}

// TestTimedOutTextMatchesTheScript: the fake node prints TimedOut's words for a hung call;
// the real script must print the same.
func TestTimedOutTextMatchesTheScript(t *testing.T) {
	got := TimedOut("hns-networks.json", 2*time.Second)
	if !strings.HasPrefix(got, "timed out after 2 s (hns-networks.json ") {
		t.Fatalf("%q", got)
	}
	ps := strings.NewReplacer("$Limit", "2", "$Name", "hns-networks.json").Replace(`"timed out after $Limit s ($Name ` + timedOutWhy + `)"`)
	if !strings.Contains(strings.NewReplacer("$Limit", "2", "$Name", "hns-networks.json").Replace(prelude), ps) {
		t.Fatalf("the script's timeout text differs from %q", got)
	}
	if !strings.Contains(prelude, "$code = 1460") || ExitTimedOut != 1460 {
		t.Fatal("the script's timeout exit status differs from ExitTimedOut")
	}
}

// TestBootstrapRefusesConstrainedLanguage: outside FullLanguage the bootstrap says why
// before touching [Console]::In or [scriptblock]::Create, which that mode blocks.
func TestBootstrapRefusesConstrainedLanguage(t *testing.T) {
	check := strings.Index(BootstrapScript, "LanguageMode")
	read := strings.Index(BootstrapScript, "[Console]::In")
	if check < 0 || read < check {
		t.Fatalf("the language mode is not checked first: %s", BootstrapScript)
	}
	if !strings.Contains(BootstrapScript, `throw "`+LanguageModeRefusal+`$m mode on ${env:COMPUTERNAME}: `) {
		t.Fatalf("refusal text: %s", BootstrapScript)
	}
	if strings.Contains(prelude, "[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false\n") {
		t.Fatal("the sweep sets [Console]::OutputEncoding outside a try: it throws where the handle is invalid")
	}
}

func TestDecodeCLIXMLStreamNamesInAnyCase(t *testing.T) {
	in := "#< CLIXML\r\n<Objs Version=\"1.1.0.1\"><S S=\"warning\">deprecated flag_x000D__x000A_</S>" +
		"<S S=\"debug\">dbg_x000A_</S><S S=\"error\">boom_x000D__x000A_</S></Objs>"
	want := "WARNING: deprecated flag\nDEBUG: dbg\nboom"
	if got := DecodeCLIXML([]byte(in)); got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}
