package scripts

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// centOS7IP stands in for CentOS 7's ip (iproute2 3.10, which has no -j): a shell
// function, which the fallback calls by name, printing that version's one-line text
// output (ip -o, continuation lines joined with "\").
const centOS7IP = `ip() {
	case "$*" in
	"route show table main") printf '%s\n' 'default via 10.0.0.1 dev eth0 proto dhcp metric 100' \
		'10.244.1.0/24 via 10.244.1.0 dev flannel.1 onlink' \
		'10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.4 metric 100' 'blackhole 10.244.0.0/24' ;;
	"-o link show") printf '%s\n' '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT qlen 1\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00' \
		'2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc pfifo_fast state UP mode DEFAULT qlen 1000\    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff' ;;
	"-o addr show") printf '%s\n' '1: lo    inet 127.0.0.1/8 scope host lo\       valid_lft forever preferred_lft forever' \
		'2: eth0    inet 10.0.0.4/24 brd 10.0.0.255 scope global eth0\       valid_lft forever preferred_lft forever' ;;
	"-o -d link show") printf '%s\n' '4: flannel.1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc noqueue state UNKNOWN mode DEFAULT \    link/ether 3a:1b:2c:3d:4e:5f brd ff:ff:ff:ff:ff:ff promiscuity 0 \    vxlan id 4096 local 10.0.0.4 dev eth0 srcport 0 0 dstport 4789 nolearning ageing 300' ;;
	*) echo 'Option "-j" is unknown, try "ip -help".' >&2; return 255 ;;
	esac
}
`

// TestLinuxIPWithoutJSON: where ip refuses -j (CentOS 7), the route, address and link
// files are made from its text output, decode to the same fields, and say so in a note
// rather than failing.
func TestLinuxIPWithoutJSON(t *testing.T) {
	// The first call is what iproute2 3.10 answers to `ip -j ...`: exit 255.
	refuse := `sh -c 'echo "Option \"-j\" is unknown, try \"ip -help\"." >&2; exit 255'`
	script := LinuxPrelude() + centOS7IP
	for _, c := range linuxCalls {
		if strings.HasPrefix(c.opt, "iproute-") {
			script += "wts_call " + c.name + " 10 " + c.opt + " " + refuse + "\n"
		}
	}
	r := runSh(t, script+"wts_end\n")
	if len(r) != 3 {
		t.Fatalf("%d frames, want 3: %+v", len(r), r)
	}
	for _, f := range r {
		if f.Failed() || !strings.Contains(string(f.Notes), "no -j (CentOS 7") {
			t.Errorf("%s: exit %d, stderr %q, notes %q", f.Name, f.Exit, f.Stderr, f.Notes)
		}
	}
	routes, err := decode.DecodeIPRoutes(r[0].Name, r[0].Stdout)
	if err != nil || len(routes) != 4 || routes[0].Dst != "default" || routes[0].Gateway != "10.0.0.1" ||
		routes[1].Flags[0] != "onlink" || routes[2].PrefSrc != "10.0.0.4" || routes[3].Type != "blackhole" {
		t.Errorf("routes %+v, %v\n%s", routes, err, r[0].Stdout)
	}
	addrs, err := decode.DecodeIPLinks(r[1].Name, r[1].Stdout)
	if err != nil || len(addrs) != 2 || !addrs[1].HasAddr("10.0.0.4") || addrs[1].MTU != 1500 || addrs[1].OperState != "UP" {
		t.Errorf("addresses %+v, %v\n%s", addrs, err, r[1].Stdout)
	}
	links, err := decode.DecodeIPLinks(r[2].Name, r[2].Stdout)
	if err != nil || len(links) != 1 {
		t.Fatalf("links %+v, %v\n%s", links, err, r[2].Stdout)
	}
	if v, ok := links[0].VXLAN(); !ok || v.ID != 4096 || v.Port != 4789 || v.Local != "10.0.0.4" || v.Dev != "eth0" {
		t.Errorf("vxlan %+v %v\n%s", v, ok, r[2].Stdout)
	}
}
