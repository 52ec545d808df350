package screening

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/internal/screening/fixtures"
	"github.com/svcplatform/svc/store"
)

// BenchmarkScreeningAPI100k screens the labelled query mix through the API (real HTTP on
// loopback, authentication, rate limiting, validation, the stored screening and its
// OpenAPI check) against the same 100k-entity list stored as an organisation list. The
// baseline in the same run is the in-process search of the same queries; the ratio says
// what the API adds.
//
//	go test ./bench/screening/ -run '^$' -bench API -benchtime 500x
func BenchmarkScreeningAPI100k(b *testing.B) {
	setup(b)
	h := apitest.New(b, apitest.Options{Clock: apitest.NewRunningClock()})
	h.NoRateLimits(h.Org.ID)
	l := fixtures.Generate(42, benchEntities)
	list := &store.ScreeningList{ID: ids.New(ids.List), OrgID: h.Org.ID, Name: "bench", Kind: screening.KindOrganisation,
		CreatedAt: time.Now().UTC(), RefreshedAt: time.Now().UTC()}
	if _, err := h.Store.Screening.CreateList(context.Background(), list, l.Entities, false); err != nil {
		b.Fatal(err)
	}
	body := func(q screening.Query) map[string]any {
		m := map[string]any{"fullName": q.Name, "lists": []string{list.ID}}
		if q.BirthDate != nil {
			m["birthDate"] = q.BirthDate.String()
		}
		if q.Type != screening.Unknown {
			m["entityType"] = string(q.Type)
		}
		return m
	}
	// The first screening builds the list's index; it is not measured.
	if r := h.Do("POST", "/api/screenings", h.AdminKey, body(queries[0].Query)); r.Status != http.StatusCreated {
		b.Fatalf("warm-up: %d %s", r.Status, r.Body)
	}
	b.ResetTimer()
	api := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)].Query
		t0 := time.Now()
		r := h.Do("POST", "/api/screenings", h.AdminKey, body(q))
		api = append(api, time.Since(t0))
		if r.Status != http.StatusCreated {
			b.Fatalf("%q: %d %s", q.Name, r.Status, r.Body)
		}
	}
	b.StopTimer()
	inProcess, _ := run(b, index.Search)
	apiP99 := percentiles(b, "api-ms", api)
	baseP99 := percentiles(b, "inprocess-ms", inProcess)
	b.ReportMetric(apiP99/max(baseP99, 0.001), "p99-ratio")
}
