// Package screening benchmarks the screening engine in process: one screening against a
// generated 100,000-entity list (generated at run time from a fixed seed, never committed).
//
//	go test ./bench/screening/ -run '^$' -bench . -benchtime 2000x
//
// Each query's latency is measured twice: wall time, and the CPU time of the thread that ran
// it (CLOCK_THREAD_CPUTIME_ID), which a busy machine does not inflate. The baseline in the
// same run is the same queries scored against every name of the list (no blocking).
package screening

import (
	"runtime"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/internal/screening/fixtures"
)

// benchEntities is the size of the benchmark list.
const benchEntities = 100_000

var (
	once    sync.Once
	index   *screening.Index
	queries []fixtures.Labelled
)

func setup(b *testing.B) {
	once.Do(func() {
		l := fixtures.Generate(42, benchEntities)
		start := time.Now()
		index = screening.NewIndex("bench", l.Entities)
		b.Logf("indexed %d entities in %v", benchEntities, time.Since(start).Round(time.Millisecond))
		queries = fixtures.EvalSet(l, 4242, 2000)
	})
}

// threadCPU is the CPU time the calling OS thread has used.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

func percentiles(b *testing.B, unit string, lat []time.Duration) float64 {
	sort.Slice(lat, func(x, y int) bool { return lat[x] < lat[y] })
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-"+unit)
	b.ReportMetric(pct(0.99), "p99-"+unit)
	return pct(0.99)
}

func run(b *testing.B, search func(screening.Query) []screening.Hit) (wall, cpu []time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)].Query
		t0, c0 := time.Now(), threadCPU()
		search(q)
		cpu = append(cpu, threadCPU()-c0)
		wall = append(wall, time.Since(t0))
	}
	b.StopTimer()
	return wall, cpu
}

// BenchmarkScreening100k screens the labelled query mix (true matches with variations and
// non-matches) one at a time through the index.
func BenchmarkScreening100k(b *testing.B) {
	setup(b)
	wall, cpu := run(b, index.Search)
	percentiles(b, "wall-ms", wall)
	percentiles(b, "cpu-ms", cpu)
}

// BenchmarkScreening100kExhaustive is the baseline: the same queries scored against all
// 100,000 entities' names. Run it with a small -benchtime (it takes about a second a query).
func BenchmarkScreening100kExhaustive(b *testing.B) {
	setup(b)
	wall, cpu := run(b, index.SearchExhaustive)
	percentiles(b, "wall-ms", wall)
	percentiles(b, "cpu-ms", cpu)
}

// BenchmarkRescreenDelta measures ongoing monitoring's engine cost: monitored customers
// rescreened against the entities a list update added or changed (1% of the 100k list),
// reported as customers per minute on one core, the way the rescreen activity does it (the
// version's full index, scoring only delta entities, so scores equal a full screening's).
// The baseline in the same run rescreens them against the whole list.
func BenchmarkRescreenDelta(b *testing.B) {
	setup(b)
	l := fixtures.Generate(43, benchEntities)
	cust := fixtures.Generate(44, 5000)
	var d screening.Delta
	for i := 0; i < benchEntities; i += 100 {
		d.Changed = append(d.Changed, l.Entities[i].ID)
	}
	full := screening.NewIndex("bench", l.Entities)
	only := map[string]bool{}
	for _, id := range d.Changed {
		only[id] = true
	}
	deltaSearch := func(q screening.Query) []screening.Hit { q.Only = only; return full.Search(q) }
	perMin := func(search func(screening.Query) []screening.Hit, n int) float64 {
		start := time.Now()
		for i := 0; i < n; i++ {
			e := cust.Entities[i%len(cust.Entities)]
			q := screening.Query{Name: e.Name, Type: e.Type, Country: ""}
			if len(e.BirthDates) > 0 {
				q.BirthDate = &e.BirthDates[0]
			}
			search(q)
		}
		return float64(n) / time.Since(start).Minutes()
	}
	b.ResetTimer()
	deltaRate := perMin(deltaSearch, b.N)
	fullRate := perMin(full.Search, max(1, b.N/10))
	b.ReportMetric(deltaRate, "delta-customers/min")
	b.ReportMetric(fullRate, "full-customers/min")
	b.ReportMetric(deltaRate/fullRate, "ratio")
}
