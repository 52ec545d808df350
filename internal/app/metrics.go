package app

import (
	"io"
	"log/slog"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/client"
	sdktally "go.temporal.io/sdk/contrib/tally"
)

// sdkMetrics exports the Temporal SDK's metrics (workflow and activity task latencies, poll
// results, failures) into the same Prometheus registry as the API's, so /metrics shows both.
func sdkMetrics(reg *prom.Registry, logger *slog.Logger) (client.MetricsHandler, io.Closer) {
	// NewReporter, not Configuration.NewReporter: the latter also mounts a handler on http.DefaultServeMux.
	reporter := tallyprom.NewReporter(tallyprom.Options{
		Registerer:       reg,
		Gatherer:         reg,
		DefaultTimerType: tallyprom.HistogramTimerType,
		OnRegisterError:  func(err error) { logger.Warn("sdk metric registration", "error", err) },
	})
	scope, closer := tally.NewRootScope(tally.ScopeOptions{
		CachedReporter:  reporter,
		Separator:       tallyprom.DefaultSeparator,
		SanitizeOptions: &sanitize,
		Prefix:          "temporal",
	}, time.Second)
	return sdktally.NewMetricsHandler(sdktally.NewPrometheusNamingScope(scope)), closer
}

var sanitize = tally.SanitizeOptions{
	NameCharacters:       tally.ValidCharacters{Ranges: tally.AlphanumericRange, Characters: []rune{'_'}},
	KeyCharacters:        tally.ValidCharacters{Ranges: tally.AlphanumericRange, Characters: []rune{'_'}},
	ValueCharacters:      tally.ValidCharacters{Ranges: tally.AlphanumericRange, Characters: []rune{'_', '-', '.', ':', '/'}},
	ReplacementCharacter: tally.DefaultReplacementCharacter,
}
