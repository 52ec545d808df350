package api

import (
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics(reg *prometheus.Registry) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_http_requests_total",
			Help: "API requests by route and status code.",
		}, []string{"method", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "svc_http_request_duration_seconds",
			Help:    "API request latency by route.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route"}),
	}
	// Registering twice on one registry (a second Server in a test) reuses the first collectors.
	m.requests = registerOrExisting(reg, m.requests).(*prometheus.CounterVec)
	m.duration = registerOrExisting(reg, m.duration).(*prometheus.HistogramVec)
	_ = reg.Register(collectors.NewGoCollector())
	_ = reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func registerOrExisting(reg *prometheus.Registry, c prometheus.Collector) prometheus.Collector {
	if err := reg.Register(c); err != nil {
		if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
			return are.ExistingCollector
		}
	}
	return c
}

// metricsFor counts and times requests by route pattern (never by raw path, so ids do not explode labels).
// The route's series are looked up once (by status code for the counter), not per request.
func (s *Server) metricsFor(r Route) gin.HandlerFunc {
	duration := s.metrics.duration.WithLabelValues(r.Method, r.Path)
	var byCode sync.Map // status code -> prometheus.Counter
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		code := c.Writer.Status()
		counter, ok := byCode.Load(code)
		if !ok {
			counter, _ = byCode.LoadOrStore(code, s.metrics.requests.WithLabelValues(r.Method, r.Path, strconv.Itoa(code)))
		}
		counter.(prometheus.Counter).Inc()
		duration.Observe(time.Since(start).Seconds())
	}
}

// metricsHandler serves the Prometheus registry.
func (s *Server) metricsHandler(c *gin.Context) {
	promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{}).ServeHTTP(c.Writer, c.Request)
}
