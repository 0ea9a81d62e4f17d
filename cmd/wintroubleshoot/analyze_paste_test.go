package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeFolderOfPastes: a folder a customer filled with console text in the JSON
// slots is imported in memory, not refused as "not valid JSON".
func TestAnalyzeFolderOfPastes(t *testing.T) {
	dir := t.TempDir()
	node := filepath.Join(dir, "nodes", "win-1")
	if err := os.MkdirAll(node, 0o755); err != nil {
		t.Fatal(err)
	}
	list := "Name    : l2bridge\nType    : L2Bridge\nSubnets : {@{AddressPrefix=10.200.2.0/24; GatewayAddress=10.200.2.1}}\n\n"
	if err := os.WriteFile(filepath.Join(node, "hns-networks.json"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "analyze", dir, "-o", "json")
	if code == 2 || strings.Contains(out+errOut, "not valid JSON") {
		t.Fatalf("exit %d: the paste was refused\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "pasted console output") {
		t.Errorf("no note that the folder held pastes: %s", errOut)
	}
}

// TestAnalyzePastesOfNewFormats: netsh's route table in routes.json, a describe pod in
// events.json and crictl's pod table in containers.json are read in memory: none is
// refused as "not valid JSON", and the table crictl prints (no pod UIDs) is not taken
// for the containers evidence.
func TestAnalyzePastesOfNewFormats(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"nodes/win-1/routes.json": "\nPublish  Type      Met  Prefix                    Idx  Gateway/Interface Name\n" +
			"-------  --------  ---  ------------------------  ---  ------------------------\n" +
			"No       Manual    0    0.0.0.0/0                  11  10.240.0.1\n" +
			"No       System    256  10.240.0.0/16              11  vEthernet (Ethernet)\n",
		"cluster/events.json": "Name:         iis-1\nNamespace:    default\nNode:         win-1/10.240.0.30\nStatus:       Pending\nContainers:\n  iis:\n    Image:  iis\n" +
			"Events:\n  Type     Reason                  Age  From     Message\n  ----     ------                  ---  ----     -------\n" +
			"  Warning  FailedCreatePodSandBox  1m   kubelet  Failed to create pod sandbox: hnsCall failed in Win32: The object already exists. (0x1392)\n",
		"nodes/win-1/containers.json": "POD ID              CREATED             STATE               NAME                NAMESPACE           ATTEMPT\n" +
			"3f075e72dfa28       3 days ago          Ready               kube-proxy-bqnhm    kube-system         0\n",
	}
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run(t, "analyze", dir, "-o", "json")
	if code == 2 || strings.Contains(out+errOut, "not valid JSON") || strings.Contains(out+errOut, "not kubectl JSON") {
		t.Fatalf("exit %d: a paste was refused\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "pasted console output") {
		t.Errorf("no note that the folder held pastes: %s", errOut)
	}
	if !strings.Contains(out, "cluster/events.json") || !strings.Contains(out, "0x1392") {
		t.Errorf("the describe's FailedCreatePodSandBox event was not read:\n%s", out)
	}
	if strings.Contains(out, "RUNTIME-LEFTOVERS") && strings.Contains(out, "kube-proxy-bqnhm") && strings.Contains(out, "deleted in the API") {
		t.Errorf("crictl's table (no UIDs) was judged as containers evidence:\n%s", out)
	}
}
