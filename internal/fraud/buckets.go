package fraud

import "time"

// Velocity counters are pre-aggregated in time buckets of four sizes (a second, a minute, an
// hour, a day, aligned to the Unix epoch in UTC). Every event adds to one bucket of each size,
// and a window is read as the fewest whole buckets that tile it exactly, so a count or sum over
// any window is exact to the second while reading at most a few hundred bucket rows (a 30-day
// window: at most 59+59+23 fine buckets on each edge and 29 days), in at most two contiguous
// ranges per size.
var bucketSizes = [...]int64{1, 60, 3600, 86400}

// Bucket is one time bucket: Size seconds starting at Start (Unix seconds, a multiple of Size).
type Bucket struct {
	Size  int64
	Start int64
}

// BucketsAt lists the buckets an event at t adds to, one per size.
func BucketsAt(t time.Time) []Bucket {
	s := floorDiv(t.Unix(), 1)
	out := make([]Bucket, len(bucketSizes))
	for i, size := range bucketSizes {
		out[i] = Bucket{Size: size, Start: floorDiv(s, size) * size}
	}
	return out
}

// MaxWindowSpans bounds the spans of any window: bucket sizes rise from the window's start and
// fall towards its end, at most two runs of each size but the largest.
const MaxWindowSpans = 2*len(bucketSizes) - 1

// Span is a contiguous range of buckets of one size: those whose Start is in [From, To).
type Span struct {
	Size     int64
	From, To int64
}

// WindowStart is the first second a window ending with an event at t covers: the window holds
// the seconds (t-length, t], so an event exactly length before t is out of it.
func WindowStart(t time.Time, length time.Duration) int64 {
	return t.Unix() - int64(length/time.Second) + 1
}

// WindowSpans tiles the window of length ending at t (inclusive, at second resolution) with
// whole buckets, returned as spans of one size each.
func WindowSpans(t time.Time, length time.Duration) []Span {
	return cover(WindowStart(t, length), t.Unix()+1)
}

// cover tiles the seconds [from, to) with the largest aligned buckets that fit, merging runs of
// equal-sized buckets into spans.
func cover(from, to int64) []Span {
	var out []Span
	for a := from; a < to; {
		size := bucketSizes[0]
		for _, s := range bucketSizes[1:] {
			if a%s == 0 && a+s <= to {
				size = s
			}
		}
		if n := len(out); n > 0 && out[n-1].Size == size && out[n-1].To == a {
			out[n-1].To = a + size
		} else {
			out = append(out, Span{Size: size, From: a, To: a + size})
		}
		a += size
	}
	return out
}

// Contains reports whether the span holds bucket b.
func (s Span) Contains(b Bucket) bool {
	return b.Size == s.Size && b.Start >= s.From && b.Start < s.To
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
