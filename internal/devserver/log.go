package devserver

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// slogLogger adapts slog to the Temporal server's logger. The server is chatty at info level, so
// its info and debug lines are logged at debug; once stopping, its warnings (pollers losing their
// connection as the services shut down) are expected and logged at debug too.
type slogLogger struct {
	l        *slog.Logger
	stopping *atomic.Bool
}

func newLogger(l *slog.Logger, stopping *atomic.Bool) log.Logger { return slogLogger{l, stopping} }

func (s slogLogger) attrs(tags []tag.Tag) []any {
	out := make([]any, 0, 2*len(tags))
	for _, t := range tags {
		v := t.Value()
		if e, ok := v.(error); ok {
			v = e.Error()
		} else if st, ok := v.(fmt.Stringer); ok {
			v = st.String()
		}
		out = append(out, t.Key(), v)
	}
	return out
}

func (s slogLogger) Debug(msg string, tags ...tag.Tag) { s.l.Debug(msg, s.attrs(tags)...) }
func (s slogLogger) Info(msg string, tags ...tag.Tag)  { s.l.Debug(msg, s.attrs(tags)...) }
func (s slogLogger) Warn(msg string, tags ...tag.Tag) {
	if s.stopping.Load() {
		s.l.Debug(msg, s.attrs(tags)...)
		return
	}
	s.l.Warn(msg, s.attrs(tags)...)
}
func (s slogLogger) Error(msg string, tags ...tag.Tag) { s.l.Error(msg, s.attrs(tags)...) }
func (s slogLogger) DPanic(msg string, tags ...tag.Tag) {
	s.l.Error(msg, s.attrs(tags)...)
}
func (s slogLogger) Panic(msg string, tags ...tag.Tag) {
	s.l.Error(msg, s.attrs(tags)...)
	panic(msg)
}
func (s slogLogger) Fatal(msg string, tags ...tag.Tag) {
	s.l.Log(context.Background(), slog.LevelError+4, msg, s.attrs(tags)...)
	panic(msg)
}
