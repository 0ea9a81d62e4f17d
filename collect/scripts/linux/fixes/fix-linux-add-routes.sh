# Adds the routes a Linux worker lacks to Windows nodes' pod CIDRs (host-gw, l2bridge),
# one `ip route add PREFIX via VIA` each, as kubernetes-the-hard-way docs/11 adds them
# between workers. p_Routes holds one route per line, "PREFIX<TAB>VIA" (the fix's
# Routes, fields in key order). A route to PREFIX already in the main table is left as
# it is and said (`ip route show exact`), never replaced. The routes last until reboot:
# the CNI config or a systemd-networkd [Route] section is what keeps them.
tab=$(printf '\t')
status=0
while IFS=$tab read -r prefix via; do
	[ -n "$prefix" ] || continue
	have=$(ip route show exact "$prefix")
	if [ -n "$have" ]; then
		printf 'route to %s already present: %s\n' "$prefix" "$have"
	elif ip route add "$prefix" via "$via"; then
		printf 'added %s via %s\n' "$prefix" "$via"
	else
		status=1
	fi
done <<WTS_ROUTES
$p_Routes
WTS_ROUTES
exit "$status"
