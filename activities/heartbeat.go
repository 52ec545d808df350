package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// Heartbeat records a heartbeat every interval until the returned stop is called, so that a
// long stage (OCR) on a lost worker is noticed early; outside an activity it does nothing.
func Heartbeat(ctx context.Context, interval time.Duration) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}
