package relay

import (
	"testing"
	"time"
)

// TestBackoffDelay: doubling from Initial, capped at Max, always within ±Jitter.
func TestBackoffDelay(t *testing.T) {
	b := Backoff{Initial: 500 * time.Millisecond, Max: 30 * time.Second, Jitter: 0.2}
	for _, tc := range []struct {
		failed int
		base   time.Duration
	}{
		{1, 500 * time.Millisecond},
		{2, time.Second},
		{3, 2 * time.Second},
		{7, 30 * time.Second}, // 32 s capped
		{100, 30 * time.Second},
	} {
		lo, hi := time.Duration(float64(tc.base)*0.8), time.Duration(float64(tc.base)*1.2)
		for range 200 {
			if d := b.Delay(tc.failed); d < lo || d > hi {
				t.Fatalf("Delay(%d) = %v, want within [%v, %v]", tc.failed, d, lo, hi)
			}
		}
	}
}
