package metrics

import (
	"strings"
	"testing"
)

func TestWriteTextFormat(t *testing.T) {
	r := New()
	c := r.NewCounter("dtp_test_total", "A counter.", "relay")
	g := r.NewGauge("dtp_test_gauge", "A gauge.")
	copied := r.NewCopiedCounter("dtp_copied_total", "Counted elsewhere.")
	c.Inc(`wss://a"b`)
	c.Add(2, `wss://a"b`)
	g.Set(0.5)
	r.OnCollect(func(*Registry) { copied.Set(7) })
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `# HELP dtp_copied_total Counted elsewhere.
# TYPE dtp_copied_total counter
dtp_copied_total 7
# HELP dtp_test_gauge A gauge.
# TYPE dtp_test_gauge gauge
dtp_test_gauge 0.5
# HELP dtp_test_total A counter.
# TYPE dtp_test_total counter
dtp_test_total{relay="wss://a\"b"} 3
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	g.Reset()
	b.Reset()
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "dtp_test_gauge 0.5") || !strings.Contains(b.String(), `dtp_test_total{relay="wss://a\"b"} 3`) {
		t.Fatalf("Reset misbehaves:\n%s", b.String())
	}
}

func TestRuntimeCollectors(t *testing.T) {
	r := New()
	r.AddRuntimeCollectors()
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"\ngo_goroutines ", "\ngo_memstats_alloc_bytes ", "\nprocess_resident_memory_bytes "} {
		if !strings.Contains(b.String(), name) {
			t.Errorf("no %q series", name)
		}
	}
}
