// Package metrics is a small Prometheus text-format registry: counters and
// gauges with labels, written by the engine and read at GET /metrics. It is
// tiny on purpose; the product exposes a few dozen series.
package metrics

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Registry holds every series. The zero value is not usable: call New.
type Registry struct {
	mu       sync.Mutex
	families map[string]*family
	collect  []func(*Registry)
}

type family struct {
	name, help, kind string
	labels           []string
	values           map[string]float64 // key: joined label values
}

// New returns an empty registry.
func New() *Registry { return &Registry{families: make(map[string]*family)} }

// Counter is a monotonically increasing series family.
type Counter struct {
	r *Registry
	f *family
}

// Gauge is a series family that can go up and down.
type Gauge struct {
	r *Registry
	f *family
}

func (r *Registry) family(kind, name, help string, labels []string) *family {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.families[name]; ok {
		return f
	}
	f := &family{name: name, help: help, kind: kind, labels: labels, values: make(map[string]float64)}
	r.families[name] = f
	return f
}

// NewCounter registers (or returns) a counter family.
func (r *Registry) NewCounter(name, help string, labels ...string) Counter {
	return Counter{r, r.family("counter", name, help, labels)}
}

// NewGauge registers (or returns) a gauge family.
func (r *Registry) NewGauge(name, help string, labels ...string) Gauge {
	return Gauge{r, r.family("gauge", name, help, labels)}
}

// NewCopiedCounter registers a counter family whose values are counted
// elsewhere and copied in at scrape time (see OnCollect): exposed as a
// counter, set like a gauge.
func (r *Registry) NewCopiedCounter(name, help string, labels ...string) Gauge {
	return Gauge{r, r.family("counter", name, help, labels)}
}

// OnCollect registers a function that refreshes gauges right before every
// scrape, for values that are cheaper to read than to track.
func (r *Registry) OnCollect(fn func(*Registry)) {
	r.mu.Lock()
	r.collect = append(r.collect, fn)
	r.mu.Unlock()
}

func key(f *family, values []string) string {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("metrics: %s wants %d label values, got %d", f.name, len(f.labels), len(values)))
	}
	return strings.Join(values, "\xff")
}

// Add adds v (>= 0) to the series with these label values.
func (c Counter) Add(v float64, labelValues ...string) {
	k := key(c.f, labelValues)
	c.r.mu.Lock()
	c.f.values[k] += v
	c.r.mu.Unlock()
}

// Inc adds one.
func (c Counter) Inc(labelValues ...string) { c.Add(1, labelValues...) }

// Set sets the series with these label values.
func (g Gauge) Set(v float64, labelValues ...string) {
	k := key(g.f, labelValues)
	g.r.mu.Lock()
	g.f.values[k] = v
	g.r.mu.Unlock()
}

// Reset drops every series of the family (for label sets that come and go,
// such as relays that were removed).
func (g Gauge) Reset() {
	g.r.mu.Lock()
	g.f.values = make(map[string]float64)
	g.r.mu.Unlock()
}

// Value reads one series (0 when absent); for tests and status.
func (r *Registry) Value(name string, labelValues ...string) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.families[name]
	if !ok {
		return 0
	}
	return f.values[strings.Join(labelValues, "\xff")]
}

// WriteText writes every family in the Prometheus text exposition format.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	collect := r.collect
	r.mu.Unlock()
	for _, fn := range collect {
		fn(r)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.families))
	for n := range r.families {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		f := r.families[n]
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.kind)
		keys := make([]string, 0, len(f.values))
		for k := range f.values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(f.name)
			if len(f.labels) > 0 {
				b.WriteByte('{')
				for i, v := range strings.Split(k, "\xff") {
					if i > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, "%s=%s", f.labels[i], strconv.Quote(v))
				}
				b.WriteByte('}')
			}
			b.WriteByte(' ')
			b.WriteString(formatValue(f.values[k]))
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func formatValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
