#!/usr/bin/env bash
# Runs the whole test suite: vet, every package's tests (including the
# real-window GUI test under Xvfb; the engine's under the race detector),
# then each fuzz target for a few seconds beyond its seed corpus, and the
# .deb package's build and contents. All of it with the C verifier
# (the default build), plus one short run of the validation tests with the pure-Go
# verifier so that build does not rot. Last, the Windows part
# (packaging/windows/test.sh, which also runs alone).
set -euo pipefail
cd "$(dirname "$0")/.."
source packaging/setup.sh
echo "== go vet" >&2
go vet ./...
echo "== go test" >&2
DTP_GUI_TEST=1 go test -count=1 -timeout 40m $(go list ./... | grep -v /engine)
echo "== go test -race (engine)" >&2
go test -race -count=1 -timeout 40m ./engine/...
echo "== go test engine NIP-77 interop with go-nostr's client (its relay races with itself: no -race)" >&2
go test -count=1 -run '^TestNIP77ServerWithGoNostrClient$' ./engine
echo "== go test validation, pure-Go verifier" >&2
go test -tags=purego -count=1 ./engine/validation/...
echo "== fuzz" >&2
# package:target:inputs, about 5 s each here. A count, not a duration: with
# -fuzztime 5s Go 1.26's coordinator can report "context deadline exceeded"
# at the deadline without any failing input (golang/go#75804, fixed in 1.27).
for spec in validation:FuzzParseStatement:100000 validation:FuzzParseClaims:100000 server:FuzzFrame:20000 \
	store:FuzzQueryMatchesReference:20000 store:FuzzDecodeTags:30000; do
	IFS=: read -r pkg target inputs <<<"$spec"
	go test -run '^$' -fuzz "^${target}\$" -fuzztime "${inputs}x" "./engine/${pkg}"
done
echo "== .deb" >&2
make -s -C packaging deb
bash packaging/check-deb.sh packaging/dist/dtp-personal_*.deb
echo "== Windows build, installer and Wine tests; macOS vet" >&2
bash packaging/windows/test.sh
