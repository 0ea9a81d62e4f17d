# Adds the route to a peer node's pod subnet (host-gw, or flannel's Windows l2bridge
# peers), as the hard-way worker bootstrap does by hand: ip route add DST via GATEWAY
# [dev DEV]. `add`, not `replace`: an existing route to DST is reported (RTNETLINK
# answers: File exists), never moved silently. The route lasts until reboot; the CNI
# (or a systemd-networkd route) is what keeps it.
if [ -n "${p_Dev:-}" ]; then
	ip route add "$p_Dst" via "$p_Gateway" dev "$p_Dev"
else
	ip route add "$p_Dst" via "$p_Gateway"
fi
