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
