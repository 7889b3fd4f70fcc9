package validation

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

func benchStatement(b *testing.B) *nostr.Event {
	return signed(b, KindTrust, "Maintains the library and reviews security reports.",
		userD, nostr.Tag{"k", "user:id"}, nostr.Tag{"i", userSubject, "user:name:nasa", npubA},
		nostr.Tag{"s", "x.com"}, nostr.Tag{"v", "1"}, nostr.Tag{"l", "reviewer", "desc"})
}

// go test ./engine/validation/ -run '^$' -bench . -benchtime 2s
func BenchmarkVerifyEvent(b *testing.B) {
	ev := benchStatement(b)
	b.ResetTimer()
	for b.Loop() {
		if err := VerifyEvent(ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkParseStatement(b *testing.B) {
	ev := benchStatement(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := ParseStatement(ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
