#!/usr/bin/env bash
# The Windows part of the test suite; packaging/test.sh runs it, and it runs
# alone too. It installs the MinGW-w64 cross compiler, NSIS and Wine,
# builds the Windows executable, zip and installer (make -C packaging
# windows), then in a private Wine prefix runs
#   - the Windows-only tests of the packages that have them (test binaries
#     cross-compiled for Windows),
#   - app/wine_test.go against the built dtp-personal.exe: version; serve
#     --headless answering NIP-11, a push and a REQ from this machine's
#     loopback; roots, resolve and backup from the CLI; db check; the
#     default data directory; the installer and uninstaller, silently; the
#     window under Xvfb with a screenshot,
# and vets for macOS and Windows the packages that need no cgo (app and ui
# are compiled for Windows by the build). Each step prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/../.."
source packaging/setup.sh

step_start=$SECONDS
step() {
	echo "== windows: $1 ($((SECONDS - step_start)) s since start)" >&2
}

need_pkgs=()
for p in gcc-mingw-w64-x86-64 nsis wine wine64 zip; do
	have "$p" || need_pkgs+=("$p")
done
if ((${#need_pkgs[@]})); then
	if [[ $(id -u) -ne 0 ]]; then
		echo "windows: missing system packages. Run:" >&2
		echo "  sudo apt-get install -y --no-install-recommends ${need_pkgs[*]}" >&2
		exit 1
	fi
	step "installing ${need_pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# without recommends: Wine's fonts, Mono, Gecko and sound are not needed
	apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

step "make -C packaging windows"
make -s -C packaging windows
dist=$PWD/packaging/dist
exe=$dist/windows/dtp-personal/dtp-personal.exe
setup=$(echo "$dist"/dtp-personal-*-setup.exe)
zip=$(echo "$dist"/dtp-personal-*-windows-amd64.zip)
for f in dtp-personal/dtp-personal.exe dtp-personal/dtp-personal.ico; do
	zip -sf "$zip" | grep -qx "  $f" || { echo "$zip lacks $f" >&2; exit 1; }
done

# A private prefix, so nothing of the machine's own Wine set-up is used or
# changed; no Mono or Gecko (their install prompt would wait for a click).
work=$(mktemp -d)
export WINEPREFIX=$work/prefix WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() {
	wineserver -k 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
step "wineboot --init"
wineboot --init >/dev/null 2>&1
wineserver -w
# Go programs since Go 1.22 need bcryptprimitives.dll, which Wine 8.0
# (Debian 12) lacks: a stand-in goes into the prefix, not into the product.
x86_64-w64-mingw32-gcc -O2 -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
	packaging/windows/wine-bcryptprimitives.c -lbcrypt

# The packages with Windows-only tests; the C verifier's finds the static
# libsecp256k1 the Makefile built.
for pkg in ./internal/owneronly ./ui/autostart ./engine/validation/schnorr; do
	step "go test $pkg (windows/amd64, under Wine)"
	bin=$work/$(basename "$pkg").test.exe
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc \
		PKG_CONFIG_LIBDIR=$dist/windows/secp256k1 go test -c -o "$bin" "$pkg"
	wine "$bin" -test.count=1
done

step "go test ./app -run UnderWine (dtp-personal.exe under Wine)"
DTP_WINE_EXE=$exe DTP_WINE_SETUP=$setup go test -count=1 -timeout 20m -run 'UnderWine$' -v ./app

step "go vet, GOOS=darwin and GOOS=windows (packages without cgo)"
for goos in darwin windows; do
	CGO_ENABLED=0 GOOS=$goos go vet ./engine/... ./internal/... ./ui/autostart ./assets
done
step "done"
