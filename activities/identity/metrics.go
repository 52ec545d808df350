package identity

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	idv "github.com/svcplatform/svc/internal/identity"
)

// Metrics are the identity product's Prometheus metrics: how attempts end and which checks
// fail with which reasons (no organisation or person in the labels), and how long reading a
// document takes.
type Metrics struct {
	attempts *prometheus.CounterVec
	failures *prometheus.CounterVec
	reads    prometheus.Histogram
}

// NewMetrics registers the metrics on reg (reusing them when a second worker in the same
// process registers again).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	return &Metrics{
		attempts: registered(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_identity_attempts_total",
			Help: "Identity attempts decided, by attempt status and the verification's outcome.",
		}, []string{"status", "outcome"})),
		failures: registered(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_identity_check_failures_total",
			Help: "Failed identity checks, by check and reason code.",
		}, []string{"check", "reason"})),
		reads: registered(reg, prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "svc_identity_document_read_seconds",
			Help:    "Wall time of reading one attempt's document with the documents engine.",
			Buckets: []float64{0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160},
		})),
	}
}

// registered registers c on reg, or returns the collector already registered under its name.
func registered[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	var are prometheus.AlreadyRegisteredError
	if err := reg.Register(c); errors.As(err, &are) {
		return are.ExistingCollector.(C)
	}
	return c
}

// observeAttempt counts one decided attempt and its failed checks; m may be nil.
func (m *Metrics) observeAttempt(status idv.AttemptStatus, o idv.Outcome, checks []idv.CheckResult) {
	if m == nil {
		return
	}
	m.attempts.WithLabelValues(string(status), string(o.Status)).Inc()
	for _, c := range checks {
		if c.Status != idv.Failed {
			continue
		}
		for _, r := range c.Reasons {
			m.failures.WithLabelValues(string(c.Type), r).Inc()
		}
	}
}

// observeRead records how long the engine took to read a document; m may be nil.
func (m *Metrics) observeRead(d time.Duration) {
	if m != nil {
		m.reads.Observe(d.Seconds())
	}
}
