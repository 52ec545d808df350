package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/svcplatform/svc/store/storetest"
)

// TestUpkeepNotRepeatedByLongWindows checks that housekeeping (Memory's sweep, Database's purge
// query) runs at most once a minute when buckets with different windows interleave: a 10-minute
// window starts earlier than a 1-minute one at the same moment, which must not count as due.
func TestUpkeepNotRepeatedByLongWindows(t *testing.T) {
	at := func(hh, mm int) time.Time { return time.Date(2026, 6, 1, hh, mm, 0, 0, time.UTC) }
	steps := []struct {
		start  time.Time
		window time.Duration
		want   time.Time // when upkeep last ran, after this hit
	}{
		{at(10, 5), time.Minute, at(10, 5)},      // first hit: upkeep runs
		{at(10, 0), 10 * time.Minute, at(10, 5)}, // upload window started earlier: not due
		{at(10, 5), time.Minute, at(10, 5)},      // same minute: not due
		{at(10, 0), 10 * time.Minute, at(10, 5)},
		{at(10, 6), time.Minute, at(10, 6)}, // a minute on: due
	}
	run := func(t *testing.T, hit func(start time.Time, window time.Duration), last func() time.Time) {
		for i, st := range steps {
			hit(st.start, st.window)
			if got := last(); !got.Equal(st.want) {
				t.Fatalf("step %d (start %s, window %s): upkeep last ran at %s, want %s", i, st.start, st.window, got, st.want)
			}
		}
	}
	ctx := context.Background()
	t.Run("memory", func(t *testing.T) {
		m := NewMemory()
		run(t, func(start time.Time, window time.Duration) {
			if _, err := m.Hit(ctx, "k", start, window); err != nil {
				t.Fatal(err)
			}
		}, func() time.Time { m.mu.Lock(); defer m.mu.Unlock(); return m.swept })
	})
	for _, b := range storetest.Backends(t) {
		t.Run("database/"+b.Name, func(t *testing.T) {
			d := NewDatabase(storetest.Open(t, b), nil)
			run(t, func(start time.Time, window time.Duration) {
				if _, err := d.Hit(ctx, "k", start, window); err != nil {
					t.Fatal(err)
				}
			}, func() time.Time { d.mu.Lock(); defer d.mu.Unlock(); return d.purged })
		})
	}
}
