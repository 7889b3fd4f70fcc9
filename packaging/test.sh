#!/usr/bin/env bash
# Runs the whole test suite: vet, every package's tests (including the
# real-window GUI test under Xvfb; the engine's under the race detector),
# then each fuzz target for a few seconds beyond its seed corpus, and the
# .deb package's build and contents. All of it with the C verifier
# (the default build), plus one short run of the validation tests with the pure-Go
# verifier so that build does not rot.
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
for target in validation:FuzzParseStatement validation:FuzzParseClaims server:FuzzFrame \
	store:FuzzQueryMatchesReference store:FuzzDecodeTags; do
	go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime 5s "./engine/${target%%:*}"
done
echo "== .deb" >&2
make -s -C packaging deb
bash packaging/check-deb.sh packaging/dist/dtp-personal_*.deb
