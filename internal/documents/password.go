package documents

import (
	"errors"
	"log/slog"
)

// Password is a document password. It prints, logs and marshals as a redacted
// placeholder so that it cannot leak through fmt, slog or JSON by accident.
type Password string

const redacted = "[redacted]"

// String implements fmt.Stringer with a redacted value.
func (Password) String() string { return redacted }

// GoString implements fmt.GoStringer with a redacted value.
func (Password) GoString() string { return redacted }

// LogValue implements slog.LogValuer with a redacted value.
func (Password) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON refuses to serialise a password (it must never reach workflow history).
func (Password) MarshalJSON() ([]byte, error) {
	return nil, errors.New("docintel: a Password is not serialisable")
}

// MarshalText refuses to serialise a password.
func (Password) MarshalText() ([]byte, error) {
	return nil, errors.New("docintel: a Password is not serialisable")
}
