package fraud

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestWindowSpansTileTheWindowExactly checks, for random window ends, that the spans are
// aligned buckets covering each second of (t-W, t] exactly once, with at most two runs per
// bucket size, so a window read is exact and bounded.
func TestWindowSpansTileTheWindowExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := 0; i < 500; i++ {
		end := time.Unix(base+rng.Int64N(90*86400), 0).UTC()
		for _, w := range Windows {
			spans := WindowSpans(end, w.Length)
			next := WindowStart(end, w.Length)
			if len(spans) > MaxWindowSpans {
				t.Fatalf("%s window at %s: %d spans, more than MaxWindowSpans", w.Name, end, len(spans))
			}
			runs := map[int64]int{}
			reads := 0
			for _, s := range spans {
				if s.From != next {
					t.Fatalf("%s window at %s: span %+v starts at %d, want %d", w.Name, end, s, s.From, next)
				}
				if s.From%s.Size != 0 || s.To%s.Size != 0 || s.To <= s.From {
					t.Fatalf("span %+v is not aligned to its size", s)
				}
				runs[s.Size]++
				reads += int((s.To - s.From) / s.Size)
				next = s.To
			}
			if next != end.Unix()+1 {
				t.Fatalf("%s window at %s ends at %d, want %d", w.Name, end, next, end.Unix()+1)
			}
			for size, n := range runs {
				if n > 2 {
					t.Errorf("%s window at %s: %d runs of %ds buckets, want at most 2", w.Name, end, n, size)
				}
			}
			if reads > 2*(59+59+23)+30 {
				t.Errorf("%s window reads %d buckets", w.Name, reads)
			}
		}
	}
}

func TestWindowEdges(t *testing.T) {
	end := time.Date(2026, 3, 1, 12, 0, 30, 0, time.UTC)
	in := func(at time.Time) bool {
		for _, b := range BucketsAt(at) {
			for _, s := range WindowSpans(end, time.Hour) {
				if s.Contains(b) {
					return true
				}
			}
		}
		return false
	}
	for _, c := range []struct {
		at   time.Time
		want bool
	}{
		{end, true},
		{end.Add(-time.Hour), false},
		{end.Add(-time.Hour + time.Second), true},
		{end.Add(time.Second), false},
		{end.Add(-time.Hour + 1500*time.Millisecond), true},
	} {
		if got := in(c.at); got != c.want {
			t.Errorf("event at %s in the hour ending %s: %v, want %v", c.at.Format(time.RFC3339Nano), end.Format(time.RFC3339), got, c.want)
		}
	}
}

func TestBucketsAtBeforeTheEpoch(t *testing.T) {
	bs := BucketsAt(time.Unix(-90, 0))
	want := []Bucket{{1, -90}, {60, -120}, {3600, -3600}, {86400, -86400}}
	for i := range want {
		if bs[i] != want[i] {
			t.Errorf("bucket %d = %+v, want %+v", i, bs[i], want[i])
		}
	}
}
