#!/bin/sh
# Builds the kubectl plugin archives of one version and writes their sha256 into the krew
# manifest next to this script, so the manifest always describes archives that exist.
# Archives are reproducible (-trimpath, sorted tar entries, fixed mtime, gzip -n): the
# same commit and Go version give the same sha256.
#
#   docs/krew/release.sh v0.1.0     # writes dist/*.tar.gz|zip and updates wintroubleshoot.yaml
#
# Upload dist/* to the GitHub release of that tag, then submit the manifest to krew-index.
set -eu
version=${1:?usage: release.sh vX.Y.Z}
root=$(cd "$(dirname "$0")/../.." && pwd)
dist=${DIST:-$root/dist} # where the archives go
manifest=$root/docs/krew/wintroubleshoot.yaml
mkdir -p "$dist"
# Build what is committed (the tagged commit), not the working tree.
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git -C "$root" archive HEAD | tar -x -C "$src"
for p in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64; do
	os=${p%/*} arch=${p#*/}
	name=kubectl-wintroubleshoot_${os}_${arch}
	work=$(mktemp -d)
	bin=kubectl-wintroubleshoot
	[ "$os" = windows ] && bin=$bin.exe
	(cd "$src" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
		-ldflags "-s -w -X main.version=$version" -o "$work/$bin" ./cmd/wintroubleshoot)
	cp "$src/README.md" "$work/"
	tar -C "$work" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - "$bin" README.md |
		gzip -n >"$dist/$name.tar.gz"
	rm -rf "$work"
	sum=$(sha256sum "$dist/$name.tar.gz" | cut -d' ' -f1)
	# The sha256 line follows the uri line of this archive.
	sed -i "/\/$name.tar.gz\$/{n;s/sha256: .*/sha256: $sum/}" "$manifest"
done
sed -i "s|^  version: .*|  version: $version|; s|/releases/download/v[^/]*/|/releases/download/$version/|" "$manifest"
echo "updated $manifest for $version"
