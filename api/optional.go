package api

import (
	"bytes"
	"encoding/json"
)

// Optional is a PATCH body field that tells "absent" (Set false), "null" (Set and Null) and a
// value apart: {"actAsUserId": null} clears, a missing actAsUserId leaves the field alone.
type Optional[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON implements json.Unmarshaler; it is only called when the field is present.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}
