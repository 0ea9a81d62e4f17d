# wts:linux-sweep v1
# The Linux node sweep's prelude (POSIX sh; the tool sends it on stdin to `sh -s`, the
# calls after it). Each call prints one frame line, the framing of the Windows sweep
# (collect/scripts/frame.go):
#   @@WTS@@ NAME EXIT BASE64(stdout) BASE64(stderr) BASE64(notes)
# and the script ends with "@@WTS@@ END N". No `set -e`: a failing, missing or hung
# command costs its own frame only.

# sshd's non-login PATH often lacks the sbin folders, where ip and sysctl live.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
LC_ALL=C
export PATH LC_ALL
umask 077
wts_dir=$(mktemp -d 2>/dev/null) || { echo "mktemp -d failed: no writable temporary folder on this node" >&2; exit 1; }
trap 'rm -rf "$wts_dir"' EXIT
trap 'exit 130' HUP INT TERM
wts_count=0
wts_timeout=
if command -v timeout >/dev/null 2>&1; then wts_timeout=timeout; fi

# wts_call NAME LIMIT OPT COMMAND [ARG...] runs COMMAND (stdin closed: this script is
# the shell's stdin) under `timeout LIMIT`, and frames what it printed. OPT is "-", or
# "partial": stderr is a note when the command printed something (sysctl with one key
# missing), or a filter function that rewrites stdout after a success.
wts_call() {
	name=$1 limit=$2 opt=$3
	shift 3
	: >"$wts_dir/o"
	: >"$wts_dir/e"
	: >"$wts_dir/n"
	if ! command -v "$1" >/dev/null 2>&1; then
		printf '%s: command not found on this node (PATH=%s)\n' "$1" "$PATH" >"$wts_dir/e"
		wts_frame "$name" 127
		return
	fi
	if [ -n "$wts_timeout" ]; then
		# -k: a command that ignores TERM is killed 2 s later (exit 137).
		timeout -k 2 "$limit" "$@" <"/dev/null" >"$wts_dir/o" 2>"$wts_dir/e"
	else
		"$@" <"/dev/null" >"$wts_dir/o" 2>"$wts_dir/e"
	fi
	code=$?
	case $code in
	124 | 137) [ -n "$wts_timeout" ] && printf 'timed out after %s s (%s did not answer)\n' "$limit" "$*" >>"$wts_dir/e" ;;
	esac
	case $opt in
	iproute-*)
		# iproute2 has -j since 4.13 (2017); CentOS 7's 3.10 refuses it with exit 255.
		if [ "$code" -ne 0 ] && grep -q 'Option "-j" is unknown' "$wts_dir/e"; then
			if wts_iproute_text "${opt#iproute-}" >"$wts_dir/o" 2>"$wts_dir/e"; then
				code=0
				printf '%s\n' "this iproute2 has no -j (CentOS 7's 3.10): the JSON was made from its text output" >>"$wts_dir/e"
			else
				code=1
			fi
		fi
		opt=-
		;;
	esac
	if [ "$code" -eq 0 ] || { [ "$opt" = partial ] && [ -s "$wts_dir/o" ]; }; then
		# Not a failure: what it wrote on stderr is kept as a note.
		mv "$wts_dir/e" "$wts_dir/n"
		: >"$wts_dir/e"
		code=0
		case $opt in
		- | partial) ;;
		*) "$opt" <"$wts_dir/o" >"$wts_dir/f" 2>>"$wts_dir/e" || code=1
			mv "$wts_dir/f" "$wts_dir/o" ;;
		esac
	fi
	wts_frame "$name" "$code"
}

# wts_iproute_text route|addr|link prints what `ip -j` prints for it (the fields
# evidence/decode/linux.go reads), made from the one-line text output (ip -o) of an
# iproute2 without -j. ip -j omits "type" for unicast routes and empty fields; here they
# are "" and [], which read the same.
wts_iproute_text() {
	case $1 in
	route) ip route show table main | awk "$wts_awk_q$wts_awk_route" ;;
	addr) { ip -o link show && ip -o addr show; } | awk "$wts_awk_q$wts_awk_link" ;;
	link) ip -o -d link show | awk "$wts_awk_q$wts_awk_link" ;;
	*) return 1 ;;
	esac
}
wts_awk_q='function q(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
'
# "default via 10.0.0.1 dev eth0 proto dhcp metric 100", "blackhole 10.1.0.0/24"
wts_awk_route='BEGIN { printf "[" }
{
	t = ""; i = 1
	if ($1 ~ /^(blackhole|unreachable|prohibit|throw|local|broadcast|multicast)$/) { t = $1; i = 2 }
	dst = $i; gw = ""; dev = ""; pr = ""; sc = ""; src = ""; fl = ""; m = 0
	for (j = i + 1; j <= NF; j++) {
		if ($j == "via") gw = $(++j); else if ($j == "dev") dev = $(++j); else if ($j == "proto") pr = $(++j)
		else if ($j == "scope") sc = $(++j); else if ($j == "src") src = $(++j); else if ($j == "metric") m = $(++j) + 0
		else if ($j ~ /^(onlink|linkdown|dead|pervasive)$/) fl = fl (fl == "" ? "" : ",") q($j)
	}
	printf "%s{\"type\":%s,\"dst\":%s,\"gateway\":%s,\"dev\":%s,\"protocol\":%s,\"scope\":%s,\"prefsrc\":%s,\"metric\":%d,\"flags\":[%s]}", (NR > 1 ? "," : ""), q(t), q(dst), q(gw), q(dev), q(pr), q(sc), q(src), m, fl
}
END { print "]" }'
# "3: flannel.1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc noqueue state UNKNOWN ...
# vxlan id 1 local 10.0.0.4 dev eth0 ... dstport 8472 ..." and "2: eth0    inet 10.0.0.4/24 ..."
wts_awk_link='{
	x = $1; sub(/:$/, "", x); nm = $2; sub(/:$/, "", nm); sub(/@.*/, "", nm)
	if (!(x in seen)) { seen[x] = 1; order[++n] = x; name[x] = nm }
	if (substr($3, 1, 1) == "<") {
		k = split(substr($3, 2, length($3) - 2), f, ","); s = ""
		for (i = 1; i <= k; i++) s = s (i > 1 ? "," : "") q(f[i])
		flags[x] = s
		for (i = 4; i < NF; i++) {
			if ($i == "mtu") mtu[x] = $(i + 1) + 0
			else if ($i == "state") st[x] = $(i + 1)
			else if ($i == "vxlan" && $(i + 1) == "id") { kind[x] = "vxlan"; vid[x] = $(i + 2) + 0 }
			else if (kind[x] == "vxlan" && $i == "local") vl[x] = $(i + 1)
			else if (kind[x] == "vxlan" && $i == "dev") vd[x] = $(i + 1)
			else if (kind[x] == "vxlan" && $i == "dstport") vp[x] = $(i + 1) + 0
		}
	} else if ($3 == "inet" || $3 == "inet6") {
		split($4, a, "/")
		e = "{\"family\":" q($3) ",\"local\":" q(a[1]) ",\"prefixlen\":" (a[2] + 0) "}"
		ad[x] = ad[x] (ad[x] == "" ? "" : ",") e
	}
}
END {
	printf "["
	for (j = 1; j <= n; j++) {
		x = order[j]
		printf "%s{\"ifindex\":%d,\"ifname\":%s,\"flags\":[%s],\"mtu\":%d,\"operstate\":%s,\"addr_info\":[%s]", (j > 1 ? "," : ""), x, q(name[x]), flags[x], mtu[x], q(st[x]), ad[x]
		if (kind[x] != "") printf ",\"linkinfo\":{\"info_kind\":%s,\"info_data\":{\"id\":%d,\"port\":%d,\"local\":%s,\"dev\":%s}}", q(kind[x]), vid[x], vp[x], q(vl[x]), q(vd[x])
		printf "}"
	}
	print "]"
}'

# wts_frame NAME EXIT prints the frame of the files o, e and n (base64 -w0: one line).
wts_frame() {
	printf '@@WTS@@ %s %s %s %s %s\n' "$1" "$2" "$(base64 -w0 <"$wts_dir/o")" \
		"$(base64 -w0 <"$wts_dir/e")" "$(base64 -w0 <"$wts_dir/n")"
	wts_count=$((wts_count + 1))
}

wts_end() { printf '@@WTS@@ END %s\n' "$wts_count"; }

# wts_json TEXT is TEXT as the inside of a JSON string: control characters dropped,
# backslash and double quote escaped.
wts_json() { printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g'; }

# wts_os_json is the filter of os.json: stdin is `uname -r`.
wts_os_json() {
	kernel=$(cat)
	rel=/etc/os-release
	[ -r "$rel" ] || rel=/usr/lib/os-release # os-release(5): the fallback location
	pretty=$(sed -n 's/^PRETTY_NAME=//p' "$rel" 2>/dev/null | head -n 1)
	pretty=${pretty#[\"\']}
	pretty=${pretty%[\"\']}
	printf '{"Kind":"linux","Hostname":"%s","Kernel":"%s","OSImage":"%s","CollectedAt":"%s"}\n' \
		"$(wts_json "$(uname -n)")" "$(wts_json "$kernel")" "$(wts_json "$pretty")" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

# wts_components is the filter of linux-cmdlines.txt: stdin is `ps -eo pid=,args=`;
# it keeps the processes whose program is one of the node's components.
wts_components() {
	awk '{ n = split($2, p, "/")
		if (p[n] ~ /^(kubelet|kube-proxy|containerd|flanneld|calico-node)$/) { sub(/^ +/, ""); print } }'
}

# wts_config PROG DEFAULT is the file the running PROG's --config flag names, else
# DEFAULT. It is read through /proc/PID/root (the process's own root, so a kube-proxy in
# a container is read as it sees it) where that is readable, a relative path through
# /proc/PID/cwd.
wts_config() {
	set -- "$1" "$2" "$(${wts_timeout:+timeout 10} ps -eo pid=,args= 2>/dev/null | awk -v prog="$1" '
		{ n = split($2, p, "/"); if (p[n] != prog) next
		  for (i = 3; i <= NF; i++) {
			if ($i ~ /^--config=/) { print $1, substr($i, 10); exit }
			if ($i == "--config" && i < NF) { print $1, $(i + 1); exit }
		  } }')"
	pid=${3%% *}
	file=${3#* }
	case $file in
	"") printf '%s\n' "$2"; return ;;
	/*) via=/proc/$pid/root$file ;;
	*) via=/proc/$pid/cwd/$file ;;
	esac
	if [ -r "$via" ]; then printf '%s\n' "$via"; else printf '%s\n' "$file"; fi
}

# wts_param NAME BASE64 sets p_NAME to the decoded value: a fix's parameters arrive as
# data, never as source text.
wts_param() {
	eval "p_$1=\$(printf '%s' \"\$2\" | base64 -d)"
	export "p_$1"
}
