// Package metrics is the engine's Prometheus registry, built on
// client_golang: counters incremented where things happen, and families
// whose values are counted elsewhere and copied in right before a scrape.
// It keeps the engine's call sites free of client_golang's types.
package metrics

import (
	"io"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// Registry holds every series. The zero value is not usable: call New.
type Registry struct {
	reg *prometheus.Registry

	mu      sync.Mutex
	collect []func(*Registry)
	scrape  sync.Mutex // one scrape at a time: OnCollect functions reset and refill families
}

// New returns an empty registry.
func New() *Registry { return &Registry{reg: prometheus.NewRegistry()} }

// AddRuntimeCollectors adds the standard go_* and process_* series.
func (r *Registry) AddRuntimeCollectors() {
	r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// Counter is a monotonically increasing series family.
type Counter struct{ vec *prometheus.CounterVec }

// NewCounter registers a counter family.
func (r *Registry) NewCounter(name, help string, labels ...string) Counter {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	r.reg.MustRegister(vec)
	return Counter{vec}
}

// Add adds v (>= 0) to the series with these label values.
func (c Counter) Add(v float64, labelValues ...string) { c.vec.WithLabelValues(labelValues...).Add(v) }

// Inc adds one.
func (c Counter) Inc(labelValues ...string) { c.Add(1, labelValues...) }

// NewGauge registers a gauge family.
func (r *Registry) NewGauge(name, help string, labels ...string) Gauge {
	return r.newSetFamily(prometheus.GaugeValue, name, help, labels)
}

// NewCopiedCounter registers a counter family whose values are counted
// elsewhere and copied in at scrape time (see OnCollect): exposed as a
// counter, set like a gauge.
func (r *Registry) NewCopiedCounter(name, help string, labels ...string) Gauge {
	return r.newSetFamily(prometheus.CounterValue, name, help, labels)
}

func (r *Registry) newSetFamily(kind prometheus.ValueType, name, help string, labels []string) Gauge {
	g := Gauge{&setFamily{desc: prometheus.NewDesc(name, help, labels, nil), kind: kind, values: map[string]prometheus.Metric{}}}
	r.reg.MustRegister(g.f)
	return g
}

// OnCollect registers a function that refreshes gauges right before every
// scrape, for values that are cheaper to read than to track.
func (r *Registry) OnCollect(fn func(*Registry)) {
	r.mu.Lock()
	r.collect = append(r.collect, fn)
	r.mu.Unlock()
}

// WriteText refreshes the copied values and writes every family in the
// Prometheus text exposition format.
func (r *Registry) WriteText(w io.Writer) error {
	r.scrape.Lock()
	defer r.scrape.Unlock()
	r.mu.Lock()
	collect := r.collect
	r.mu.Unlock()
	for _, fn := range collect {
		fn(r)
	}
	families, err := r.reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}
