#!/usr/bin/env bash
# Runs the whole test suite: vet, every package's tests (including the
# real-window GUI test under Xvfb), then the benchmarks once, briefly, so
# they keep compiling and running.
set -euo pipefail
cd "$(dirname "$0")/.."
source packaging/setup.sh
echo "== go vet" >&2
go vet ./...
echo "== go test" >&2
DTP_GUI_TEST=1 go test -count=1 -timeout 40m ./...
