#!/bin/sh
# Builds the kubectl plugin archives of one version and a krew manifest naming their
# sha256, in the dist folder: the tracked docs/krew/wintroubleshoot.yaml is the template
# and is never rewritten, so building anywhere leaves the working tree as it was.
# POSIX sh and tools (sed, awk, tar, gzip; sha256sum or shasum): it runs on Linux and
# macOS alike. Archives are reproducible: -trimpath, entries in a fixed order with a
# fixed mtime, owner 0 where the tar knows how, gzip -n.
#
#   docs/krew/release.sh v0.1.0     # writes dist/*.tar.gz and dist/wintroubleshoot.yaml
#   PLATFORMS=linux/amd64 docs/krew/release.sh v0.1.0   # one platform only
#
# Each archive holds the binary, LICENSE, README.md, docs/rbac.yaml (the RBAC the tool's
# messages point to) and kubectl_complete-wintroubleshoot (kubectl's plugin completion).
# Upload dist/*.tar.gz to the GitHub release of that tag, then submit
# dist/wintroubleshoot.yaml to krew-index.
set -eu
version=${1:?usage: release.sh vX.Y.Z}
root=$(cd "$(dirname "$0")/../.." && pwd)
dist=${DIST:-$root/dist} # where the archives go
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}
template=$root/docs/krew/wintroubleshoot.yaml
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
# Build what is committed, from a clone: the go command then stamps the commit and its
# time into the binary (runtime/debug.ReadBuildInfo), which `version` prints; -buildvcs=true
# keeps that so where GOFLAGS turns stamping off.
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git clone -q "$root" "$src/tree"
git -C "$src/tree" checkout -q "$(git -C "$root" rev-parse HEAD)"

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

# Owner 0 in the archive, in the words of the tar at hand (GNU tar and bsdtar differ).
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
	owner='--owner=0 --group=0 --numeric-owner'
elif tar --version 2>/dev/null | grep -q 'bsdtar'; then
	owner='--uid 0 --gid 0 --uname root --gname root'
else
	owner=''
fi

manifest=$dist/wintroubleshoot.yaml
sed "s|^  version: .*|  version: $version|; s|/releases/download/v[^/]*/|/releases/download/$version/|" "$template" >"$manifest.tmp"
for p in $platforms; do
	os=${p%/*} arch=${p#*/}
	name=kubectl-wintroubleshoot_${os}_${arch}
	work=$src/$name
	mkdir -p "$work/docs"
	bin=kubectl-wintroubleshoot
	[ "$os" = windows ] && bin=$bin.exe
	(cd "$src/tree" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=true \
		-ldflags "-s -w -X main.releaseVersion=$version" -o "$work/$bin" ./cmd/wintroubleshoot)
	cp "$src/tree/README.md" "$src/tree/LICENSE" "$src/tree/docs/krew/kubectl_complete-wintroubleshoot" "$work/"
	cp "$src/tree/docs/rbac.yaml" "$work/docs/"
	files="$bin LICENSE README.md docs/rbac.yaml kubectl_complete-wintroubleshoot"
	# POSIX touch -t: every entry gets the same mtime, whoever builds and when.
	(cd "$work" && touch -t 198001010000 $files docs)
	# shellcheck disable=SC2086 # $owner and $files are lists of words
	(cd "$work" && tar $owner -cf - $files) | gzip -n >"$dist/$name.tar.gz"
	sum=$(sha256 "$dist/$name.tar.gz")
	# The sha256 line follows the uri line of this archive.
	awk -v name="/$name.tar.gz" -v sum="$sum" '
		hit && /sha256:/ { sub(/sha256: .*/, "sha256: " sum); hit = 0 }
		index($0, name) && $0 ~ /uri:/ { hit = 1 }
		{ print }' "$manifest.tmp" >"$manifest.next"
	mv "$manifest.next" "$manifest.tmp"
done
mv "$manifest.tmp" "$manifest"
echo "wrote $dist/*.tar.gz and $manifest for $version"
