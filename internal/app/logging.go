package app

import (
	"io"
	"log/slog"

	sdklog "go.temporal.io/sdk/log"

	"github.com/svcplatform/svc/config"
)

// NewLogger builds the process logger: JSON for svc api and svc worker, text for svc dev.
func NewLogger(w io.Writer, c config.LogConfig) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// newSDKLogger adapts slog for the Temporal SDK; its info lines are logged at debug.
func newSDKLogger(l *slog.Logger) sdklog.Logger { return sdkLogger{l} }

type sdkLogger struct{ l *slog.Logger }

func (s sdkLogger) Debug(msg string, kv ...any) { s.l.Debug(msg, kv...) }
func (s sdkLogger) Info(msg string, kv ...any)  { s.l.Debug(msg, kv...) }
func (s sdkLogger) Warn(msg string, kv ...any)  { s.l.Warn(msg, kv...) }
func (s sdkLogger) Error(msg string, kv ...any) { s.l.Error(msg, kv...) }
