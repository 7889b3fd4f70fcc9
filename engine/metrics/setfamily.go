package metrics

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Gauge is a series family set to values read elsewhere: a gauge, or a
// counter copied in at scrape time (NewCopiedCounter). It is a
// prometheus.Collector of constant metrics, the client_golang way to expose
// values another component owns.
type Gauge struct{ f *setFamily }

type setFamily struct {
	desc *prometheus.Desc
	kind prometheus.ValueType

	mu     sync.Mutex
	values map[string]prometheus.Metric // key: joined label values
}

// Set sets the series with these label values; a wrong number of them
// panics here, at the call site, as client_golang's own vectors do.
func (g Gauge) Set(v float64, labelValues ...string) {
	m := prometheus.MustNewConstMetric(g.f.desc, g.f.kind, v, labelValues...)
	g.f.mu.Lock()
	g.f.values[strings.Join(labelValues, "\xff")] = m
	g.f.mu.Unlock()
}

// Reset drops every series of the family (for label sets that come and go,
// such as relays that were removed).
func (g Gauge) Reset() {
	g.f.mu.Lock()
	g.f.values = map[string]prometheus.Metric{}
	g.f.mu.Unlock()
}

func (f *setFamily) Describe(ch chan<- *prometheus.Desc) { ch <- f.desc }

func (f *setFamily) Collect(ch chan<- prometheus.Metric) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.values {
		ch <- m
	}
}
