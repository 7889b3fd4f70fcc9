#!/usr/bin/env bash
# Builds and starts dtp-personal: the tray app by default, or whatever
# arguments are given (e.g. `serve --headless`). It verifies signatures with
# the system's libsecp256k1; DTP_PUREGO=1 builds the pure-Go one (setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source packaging/setup.sh
mkdir -p bin
echo "building dtp-personal (the first build compiles GLFW and takes a few minutes)..." >&2
go build -o bin/dtp-personal ./app
exec bin/dtp-personal "$@"
