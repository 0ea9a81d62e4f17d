#!/usr/bin/env bash
# The whole test suite: the README's test command, and what .ci/run calls.
# It builds the real test cluster (kube-apiserver + etcd from the Go module proxy; cached
# after the first ~5 minute build), then runs every Go test. The packages whose tests cross
# process or network boundaries (a real apiserver, fake nodes over WinRM and SSH on
# loopback) run twice: a flake there is a bug, and a second run is where one shows.
set -euo pipefail
cd "$(dirname "$0")/.."

phase() { echo "--- $1 ($(date -u +%H:%M:%S), ${SECONDS}s in)"; }

phase "test cluster binaries"
bin_dir=$(bash fixtures/kubeapi/build.sh | tail -n 1)
export WTS_KUBEAPI_BIN="$bin_dir"

crossing=(./collect/kube ./fixtures/kubeapi ./probes ./engine ./demo/fakenode
  ./collect/transport/... ./collect/sweep ./cmd/wintroubleshoot)
mapfile -t crossing_pkgs < <(go list "${crossing[@]}")
mapfile -t other_pkgs < <(go list ./... | grep -vxF -f <(printf '%s\n' "${crossing_pkgs[@]}"))

phase "tests: in-process packages"
go test -count=1 -timeout 20m "${other_pkgs[@]}"

phase "tests: process-crossing packages, twice"
# -p 2: the clusters and fake nodes of several packages at once only fight over 2 cores.
go test -count=2 -p 2 -timeout 45m "${crossing_pkgs[@]}"

phase "tests: hostile inputs under a hard address-space limit"
# The bundle reader's hostile suite (bombs, sparse entries, deep and wide trees, links,
# huge files) again, in a process that cannot map more than 2 GiB: a case that tried to
# take gigabytes dies here instead of passing on a big machine. (Go's own reservations
# need about 2 GiB of address space; the suite itself asserts its heap and RSS bounds.)
hostile_bin=$(mktemp -d)/bundle.test
go test -c -o "$hostile_bin" ./ingest/bundle
prlimit --as=$((2 << 30)) "$hostile_bin" -test.count=1 -test.run 'TestHostileInputs|TestSeeded'
rm -rf "$(dirname "$hostile_bin")"

phase "tests: race detector"
# The pure-code packages again under the race detector: probes share decoded evidence
# across goroutines, the engine and the screen run concurrently. -short skips what is
# long and sequential (TestProbesReadWhatTheyDeclare: 17 of probes' 18 minutes under -race
# with 88 scenarios), which the pass above already ran; 45m leaves room on a slow machine.
go test -count=1 -race -short -timeout 45m ./probes ./evidence ./evidence/decode ./collect/scripts ./tui

phase "tests done"
