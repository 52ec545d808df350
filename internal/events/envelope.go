package events

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/ids"
)

// TimeFormat is the layout of occurredAt: UTC ISO 8601 with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// ErrInvalid is wrapped by every validation error of NewEnvelope.
var ErrInvalid = errors.New("invalid event")

// DeriveID returns the event id for a stable seed, in the shape of package ids:
// "evt_" + 26 lowercase Crockford base32 characters whose time part is
// occurredAt (so event ids sort by time) and whose other 80 bits are the first
// bytes of the SHA-256 of the seed parts. The same occurredAt and parts (for
// example the workflow's time of the emitting step, the workflow id and the
// step) always give the same id, so a retried publishing activity does not
// create a second event: occurredAt must therefore come from the workflow
// (workflow.Now) or a stored record, never from time.Now inside the activity.
// Parts are length-prefixed before hashing, so ("ab","c") and ("a","bc") differ.
func DeriveID(occurredAt time.Time, parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var random [10]byte
	copy(random[:], h.Sum(nil))
	return ids.Derive(ids.Event, occurredAt, random)
}

// Envelope is the body of every webhook delivery (SPEC 2.2).
type Envelope struct {
	// ID is the event id (evt_...), stable across retries and redeliveries.
	ID string
	// Event is the event name from the catalog.
	Event string
	// OccurredAt is when the event happened; it is sent in UTC with milliseconds.
	OccurredAt time.Time
	// OrgID is the owning organisation (org_...).
	OrgID string
	// Data holds the event's data object as JSON.
	Data json.RawMessage
}

type wireEnvelope struct {
	ID         string          `json:"id"`
	Event      string          `json:"event"`
	OccurredAt string          `json:"occurredAt"`
	OrgID      string          `json:"orgId"`
	Data       json.RawMessage `json:"data"`
}

// MarshalJSON writes exactly {id, event, occurredAt, orgId, data}.
func (e Envelope) MarshalJSON() ([]byte, error) {
	data := e.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	return json.Marshal(wireEnvelope{
		ID: e.ID, Event: e.Event, OccurredAt: e.OccurredAt.UTC().Format(TimeFormat), OrgID: e.OrgID, Data: data,
	})
}

// UnmarshalJSON reads an envelope; occurredAt must be RFC 3339.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	var w wireEnvelope
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, w.OccurredAt)
	if err != nil {
		return fmt.Errorf("occurredAt: %w", err)
	}
	*e = Envelope{ID: w.ID, Event: w.Event, OccurredAt: t.UTC(), OrgID: w.OrgID, Data: w.Data}
	return nil
}

// NewEnvelope builds the envelope of one event after checking it against the
// catalog: the name must be known, id a well-formed evt_ id (package ids), orgID an org_ id, and
// data (anything that marshals to a JSON object, typically map[string]any) must
// hold every key of the event, no other key, with values of the catalog kinds.
// occurredAt is kept in UTC, truncated to milliseconds as it is sent.
func NewEnvelope(id, name, orgID string, occurredAt time.Time, data any) (Envelope, error) {
	def, ok := byName[name]
	if !ok {
		return Envelope{}, fmt.Errorf("%w: unknown event name %q", ErrInvalid, name)
	}
	if !ids.Valid(ids.Event, id) {
		return Envelope{}, fmt.Errorf("%w: event id %q is not an evt_ id", ErrInvalid, id)
	}
	if !strings.HasPrefix(orgID, "org_") || len(orgID) == len("org_") {
		return Envelope{}, fmt.Errorf("%w: orgId %q does not start with \"org_\"", ErrInvalid, orgID)
	}
	if occurredAt.IsZero() {
		return Envelope{}, fmt.Errorf("%w: occurredAt is zero", ErrInvalid)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Envelope{}, fmt.Errorf("%w: %s data: %v", ErrInvalid, name, err)
	}
	if err := def.Check(raw); err != nil {
		return Envelope{}, err
	}
	return Envelope{
		ID: id, Event: name, OccurredAt: occurredAt.UTC().Truncate(time.Millisecond), OrgID: orgID, Data: raw,
	}, nil
}

// Check validates a JSON data object against the definition; the error lists
// every missing, unknown or mistyped key.
func (d Def) Check(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return fmt.Errorf("%w: %s data must be a JSON object", ErrInvalid, d.Name)
	}
	var problems []string
	known := make(map[string]bool, len(d.Keys))
	for _, k := range d.Keys {
		known[k.Name] = true
		v, ok := fields[k.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("missing key %q", k.Name))
			continue
		}
		if msg := checkKind(k, v); msg != "" {
			problems = append(problems, fmt.Sprintf("key %q %s", k.Name, msg))
		}
	}
	var unknown []string
	for name := range fields {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		problems = append(problems, fmt.Sprintf("unknown key %q", name))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s data: %s", ErrInvalid, d.Name, strings.Join(problems, "; "))
	}
	return nil
}

// checkKind returns "" when v suits the key, otherwise what is wrong.
func checkKind(k Key, v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if string(v) == "null" {
		if k.Nullable {
			return ""
		}
		return "must not be null"
	}
	ok := true
	switch k.Kind {
	case String:
		ok = v[0] == '"'
	case Number:
		ok = v[0] == '-' || (v[0] >= '0' && v[0] <= '9')
	case Integer:
		_, err := strconv.ParseInt(string(v), 10, 64)
		ok = err == nil
	case Object:
		ok = v[0] == '{'
	case Array:
		ok = v[0] == '['
	case Bool:
		ok = string(v) == "true" || string(v) == "false"
	}
	if !ok {
		return "must be a " + k.Kind.String()
	}
	return ""
}

// OrNull is s as an event data value: null when s is empty (an optional string key).
func OrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
