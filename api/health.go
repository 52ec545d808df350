package api

import (
	"context"
	"time"

	"github.com/gin-gonic/gin"
)

// healthz answers 200 while the process is up.
func (s *Server) healthz(c *gin.Context) { OK(c, gin.H{"status": "ok"}) }

// readyz answers 200 when the database and Temporal are reachable, else 503 naming what is not;
// status is "degraded" (still 200) when a capability works only in part (Deps.Degraded).
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	checks := map[string]string{"database": "ok", "temporal": "ok"}
	ready := true
	if err := s.Store.Ping(ctx); err != nil {
		checks["database"], ready = "unreachable", false
		Logger(c).Warn("readiness: database", "error", err)
	}
	if s.Temporal == nil {
		checks["temporal"], ready = "not configured", false
	} else if _, err := s.Temporal.CheckHealth(ctx, nil); err != nil {
		checks["temporal"], ready = "unreachable", false
		Logger(c).Warn("readiness: temporal", "error", err)
	}
	if !ready {
		NotReady(c, checks)
		return
	}
	// A degraded capability does not stop the rest from serving: 200, status degraded.
	status := "ready"
	if s.Degraded != nil {
		for name, why := range s.Degraded() {
			checks[name], status = "degraded: "+why, "degraded"
		}
	}
	OK(c, gin.H{"status": status, "checks": checks})
}
