#!/usr/bin/env bash
# Builds a static libsecp256k1 (with the extrakeys and schnorrsig modules
# the C verifier uses) from the C source in the go-nostr module that go.mod
# pins, and writes a pkg-config file for it, so engine/validation/schnorr
# links it where no system package has it: the Windows cross-build
# (packaging/Makefile, target windows) and macOS (README). Nothing of the C
# source is copied into the repository.
#   usage: packaging/secp256k1.sh CC AR OUTDIR
#   then:  PKG_CONFIG_LIBDIR=OUTDIR go build ./app
set -euo pipefail
cc=${1:?usage: secp256k1.sh CC AR OUTDIR} ar=${2:?usage: secp256k1.sh CC AR OUTDIR} out=${3:?usage: secp256k1.sh CC AR OUTDIR}
cd "$(dirname "$0")/.."
src=$(go list -m -f '{{.Dir}}' github.com/nbd-wtf/go-nostr)/libsecp256k1
mkdir -p "$out"
out=$(cd "$out" && pwd)
for c in secp256k1 precomputed_ecmult precomputed_ecmult_gen; do
	"$cc" -O2 -c -I"$src/include" -I"$src/src" -DENABLE_MODULE_EXTRAKEYS=1 -DENABLE_MODULE_SCHNORRSIG=1 \
		-DECMULT_WINDOW_SIZE=15 "$src/src/$c.c" -o "$out/$c.o"
done
rm -f "$out/libsecp256k1.a"
"$ar" rcs "$out/libsecp256k1.a" "$out"/*.o
rm -f "$out"/*.o
# SECP256K1_STATIC: the header's declarations without dllimport on Windows
cat >"$out/libsecp256k1.pc" <<PC
Name: libsecp256k1
Description: secp256k1, built from go-nostr's copy by packaging/secp256k1.sh
Version: 0
Cflags: -I$src/include -DSECP256K1_STATIC
Libs: -L$out -lsecp256k1
PC
