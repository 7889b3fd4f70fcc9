#!/usr/bin/env bash
# Builds and starts dtp-personal: the tray app by default, or whatever
# arguments are given (e.g. `serve --headless`). Set DTP_TAGS=libsecp256k1
# for the faster C signature verifier.
set -euo pipefail
cd "$(dirname "$0")/.."
source packaging/setup.sh
mkdir -p bin
echo "building dtp-personal (the first build compiles GLFW and takes a few minutes)..." >&2
go build -tags "${DTP_TAGS:-}" -o bin/dtp-personal ./app
exec bin/dtp-personal "$@"
