#!/usr/bin/env bash
# Installs what building, running and testing dtp-personal needs on Debian:
# cgo, libsecp256k1 and the GL/X11 headers for the Fyne build, Xvfb + D-Bus + xdotool +
# ImageMagick for the real-window tests. As root it installs them with
# apt-get; otherwise it prints the exact command and stops.
set -euo pipefail

export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"

# Signatures are verified by the system's libsecp256k1 (C, through cgo, which
# the Fyne build needs anyway; engine/validation/schnorr links it with
# pkg-config), so a plain `go build` gets it and libsecp256k1-dev is needed to
# build. DTP_PUREGO=1 builds the pure-Go verifier instead (our build tag
# purego), through GOFLAGS for this process only (never `go env -w`).
if [[ ${DTP_PUREGO:-} == 1 ]]; then
	export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=purego"
fi

need_pkgs=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in gcc pkg-config libsecp256k1-dev libgl1-mesa-dev xorg-dev xvfb dbus-x11 xdotool x11-utils imagemagick; do
	have "$p" || need_pkgs+=("$p")
done

if ((${#need_pkgs[@]})); then
	if [[ $(id -u) -eq 0 ]]; then
		echo "setup: installing ${need_pkgs[*]}" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
	else
		echo "setup: missing system packages. Run:" >&2
		echo "  sudo apt-get install -y ${need_pkgs[*]}" >&2
		exit 1
	fi
fi

if ! command -v go >/dev/null; then
	echo "setup: Go 1.26 is required (https://go.dev/doc/install); 'go' is not on PATH" >&2
	exit 1
fi
