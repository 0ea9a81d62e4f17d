package fakenode

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

// host-local (containernetworking/plugins plugins/ipam/host-local) keeps each reservation
// as a file named by the address under dataDir\<network>, holding the container ID, and
// an ADD for an ID that already holds an address in the requested range fails
// (backend/allocator/allocator.go Get):
//
//	return nil, fmt.Errorf("%s has been allocated to %s, duplicate allocation is not allowed", allocatedIP.String(), id)
//
// which cmdAdd wraps as "failed to allocate for range 0: ..." and skel prints as a CNI
// error on stdout, exit 1. GetSourceVip (microsoft/SDN helper.psm1) reserves with the
// container ID "dummy" and never releases it, so a second reservation for an unchanged
// subnet fails unless the script releases the first (CNI_COMMAND=DEL) before its ADD.

// sourceVIPHeld is the address host-local still holds for "dummy" in subnet: the one the
// node's last GetSourceVip reserved (flannel.json: sourceVipRequest.json asked for that
// subnet, sourceVip.json is its answer). ok is false when that reservation was for another
// subnet, so it lies outside the new range and does not block an ADD.
func (n *Node) sourceVIPHeld(subnet string) (netip.Addr, bool) {
	want, err := netip.ParsePrefix(subnet)
	if err != nil {
		return netip.Addr{}, false
	}
	raw, ok := n.file("flannel.json")
	if !ok {
		return netip.Addr{}, false
	}
	var f struct {
		Files []struct{ Path, Content string }
	}
	if json.Unmarshal(trimBOM(raw), &f) != nil {
		return netip.Addr{}, false
	}
	requested, held := false, netip.Addr{}
	for _, file := range f.Files {
		switch strings.ToLower(file.Path[strings.LastIndexAny(file.Path, `\/`)+1:]) {
		case "sourceviprequest.json":
			m := regexp.MustCompile(`"subnet"\s*:\s*"([^"]+)"`).FindStringSubmatch(file.Content)
			requested = m != nil && m[1] == want.Masked().String()
		case "sourcevip.json":
			var a struct{ IP4 struct{ IP string } }
			if json.Unmarshal([]byte(file.Content), &a) == nil {
				if p, err := netip.ParsePrefix(a.IP4.IP); err == nil && want.Contains(p.Addr()) {
					held = p.Addr()
				}
			}
		}
	}
	return held, requested && held.IsValid()
}

// strictFix answers the fixes whose outcome depends on how the script does its work, as
// the node would: one that does not ask hns.v2.psm1 for schema v1, one that reserves a
// source VIP without releasing the last. handled is false for every other call.
func (n *Node) strictFix(c scripts.Call, script string) (r scripts.Result, handled bool) {
	switch c.Name {
	case "fix-remove-hns-endpoints":
		if n.opts.HNSModule == "hns.v2.psm1" && !asksHNSv1(script, c.Name) {
			return removeEndpointsSchemaV2(c), true
		}
	case "fix-reset-source-vip":
		return n.resetSourceVIPWithoutRelease(c, callBody(script, c.Name))
	}
	return scripts.Result{}, false
}

// resetSourceVIPWithoutRelease answers fix-reset-source-vip for a kube-proxy service when
// the script does not release the old reservation first and the subnet is unchanged: the
// ADD fails as host-local does, and the fix stops before touching the service. ok is
// false when the fix would get through.
func (n *Node) resetSourceVIPWithoutRelease(c scripts.Call, body string) (scripts.Result, bool) {
	service, _ := c.Params["Service"].(string)
	subnet, _ := c.Params["Subnet"].(string)
	if service == "" || strings.Contains(body, "'DEL'") {
		return scripts.Result{}, false
	}
	held, ok := n.sourceVIPHeld(subnet)
	if !ok {
		return scripts.Result{}, false
	}
	msg := fmt.Sprintf(`{"cniVersion":"0.2.0","code":999,"msg":"failed to allocate for range 0: %s has been allocated to dummy, duplicate allocation is not allowed"}`, held)
	return scripts.Result{Name: c.Name, Exit: 1, Stderr: []byte("host-local reserved no address: " + msg)}, true
}
