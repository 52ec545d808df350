package automation

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/svcplatform/svc/internal/automation"
)

// Metrics are the model steps' Prometheus metrics, by organisation and model.
type Metrics struct {
	tokens  *prometheus.CounterVec
	latency *prometheus.HistogramVec
	steps   *prometheus.CounterVec
}

// NewMetrics registers the metrics on reg (reusing them when a second worker in the same
// process registers again).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_ai_tokens_total",
			Help: "Language-model tokens by organisation, model and kind (prompt, completion).",
		}, []string{"org", "model", "kind"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "svc_ai_request_duration_seconds",
			Help:    "Wall time of the model exchanges of one step, by organisation and model.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80},
		}, []string{"org", "model"}),
		steps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_ai_steps_total",
			Help: "Model steps by organisation, model and outcome (ok, error).",
		}, []string{"org", "model", "outcome"}),
	}
	m.tokens = register(reg, m.tokens).(*prometheus.CounterVec)
	m.latency = register(reg, m.latency).(*prometheus.HistogramVec)
	m.steps = register(reg, m.steps).(*prometheus.CounterVec)
	return m
}

func register(reg prometheus.Registerer, c prometheus.Collector) prometheus.Collector {
	if err := reg.Register(c); err != nil {
		if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
			return are.ExistingCollector
		}
	}
	return c
}

// Observe records one step; it is an automation.Runner's Observe.
func (m *Metrics) Observe(orgID string, res automation.Result, err error) {
	model := res.Model
	if model == "" {
		model = "unknown"
	}
	m.tokens.WithLabelValues(orgID, model, "prompt").Add(float64(res.Usage.PromptTokens))
	m.tokens.WithLabelValues(orgID, model, "completion").Add(float64(res.Usage.CompletionTokens))
	if res.Latency > 0 {
		m.latency.WithLabelValues(orgID, model).Observe(res.Latency.Seconds())
	}
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.steps.WithLabelValues(orgID, model, outcome).Inc()
}
