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
	if r.Value("dtp_test_gauge") != 0 || r.Value("dtp_test_total", `wss://a"b`) != 3 {
		t.Fatal("Reset or Value misbehaves")
	}
}
