#!/usr/bin/env bash
# The whole test suite: the README's test command, and what .ci/run calls.
# It builds the real test cluster (kube-apiserver + etcd from the Go module proxy; cached
# after the first ~5 minute build), then runs every Go test.
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir=$(bash fixtures/kubeapi/build.sh | tail -n 1)
export WTS_KUBEAPI_BIN="$bin_dir"

go test -count=1 -timeout 30m ./...

# The pure-code packages again under the race detector: probes share decoded evidence
# across goroutines, the engine and the screen run concurrently.
go test -count=1 -race -timeout 10m ./probes ./collectors ./collectors/decode ./collectors/scripts ./tui
