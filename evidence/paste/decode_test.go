package paste_test

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// TestDecoderNamesThePaste: a list view saved where JSON belongs is refused with what it
// is and how to read it, not only "not valid JSON at line 1".
func TestDecoderNamesThePaste(t *testing.T) {
	list := "PS C:\\k> Get-HnsNetwork\n\nActivityId : 29E18A85-0FFC-4C65-909D-1E78BFC1A9D0\nName       : cbr0\nType       : L2Bridge\nSubnets    : {@{AddressPrefix=10.244.1.0/24}}\n"
	_, err := decode.DecodeHNSNetworks("nodes/win-1/hns-networks.json", []byte(list))
	if err == nil || !strings.Contains(err.Error(), "Get-HnsNetwork list view") || !strings.Contains(err.Error(), "wintroubleshoot import") {
		t.Errorf("error = %v", err)
	}
	table := "NAME    STATUS   ROLES    AGE   VERSION\nwin-1   Ready    <none>   5d    v1.23.1\n"
	_, err = decode.Nodes("cluster/nodes.json", []byte(table))
	if err == nil || !strings.Contains(err.Error(), "kubectl get nodes table") {
		t.Errorf("error = %v", err)
	}
	_, err = decode.DecodeHNSNetworks("x", []byte(`[{"Name": "cbr0",`))
	if err == nil || strings.Contains(err.Error(), "looks like") {
		t.Errorf("broken JSON is described as a paste: %v", err)
	}
}
