package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
)

// Idempotency (SPEC 4.7, ARCHITECTURE 3) for routes with Idempotent: a body externalId seen again
// within idempotency.window for the same (organisation, environment, method and path, externalId)
// answers the original status and body with "idempotent": true added, and runs nothing.
//
//   - The first request claims a record (one atomic insert) before its handler runs, so of any
//     number of concurrent identical requests exactly one runs the handler; the others wait for
//     its answer (up to idempotencyWait) and replay it, or get 409 if it is still running.
//   - The same externalId with a different body (compared as canonical JSON) is 422.
//   - Only 2xx answers are remembered: after a validation failure (4xx) or an error (5xx) the
//     record is released and a corrected retry runs normally.
//   - A record whose request never finished (its process died) is taken over after idempotencyLease.
//   - A multipart upload (BodyMultipart) is streamed, not held in memory: its handler reads the
//     externalId form field and a hash of the other parts, then calls idempotent.
const (
	idempotencyWait  = 10 * time.Second
	idempotencyLease = 2 * time.Minute
	idempotencyPoll  = 20 * time.Millisecond
)

func (s *Server) idempotency(r Route) gin.HandlerFunc {
	return func(c *gin.Context) {
		if r.Body == BodyMultipart {
			// An upload is streamed by its handler, never held in memory: the handler reads the
			// externalId form field and calls Idempotent itself once it has read the body.
			c.Set(ctxIdempotent, func(extID, hash string, next func()) { s.idempotent(c, extID, hash, next) })
			c.Next()
			return
		}
		body, ok := RawBody(c)
		if !ok {
			return
		}
		extID, present, hash := idempotencyKey(body)
		if !present {
			c.Next()
			return
		}
		s.idempotent(c, extID, hash, c.Next)
	}
}

// idempotent runs next (the rest of the request) unless the same externalId was seen on this
// endpoint: then it replays that answer, or refuses a different request body (hash) with 422.
// The middleware calls it for JSON bodies; a handler that streams a multipart body calls it
// with the externalId form field and a hash of the parts.
func (s *Server) idempotent(c *gin.Context, extID, hash string, next func()) {
	// The endpoint is the concrete path: one externalId may start executions of two workflows.
	endpoint := idempotencyEndpoint(c.Request.Method, c.Request.URL.Path)
	p := PrincipalOf(c)
	if p == nil {
		next()
		return
	}
	if extID == "" || len(extID) > 200 {
		ValidationFailed(c, FieldErrors{"externalId": {MsgIdempotencyMalformed}})
		return
	}
	now := s.Now().UTC()
	s.purgeIdempotency(c, now)
	rec := &store.IdempotencyRecord{
		ID: ids.New(ids.Idempotency), OrgID: p.OrgID, Environment: p.Environment, Endpoint: endpoint,
		ExternalID: extID, RequestHash: hash, CreatedAt: now, ExpiresAt: now.Add(s.Config.Idempotency.Window),
	}
	deadline := time.Now().Add(idempotencyWait)
	for {
		existing, err := s.Store.Idempotency.Claim(c.Request.Context(), rec)
		if err != nil {
			Internal(c, err)
			return
		}
		if existing == nil {
			break // ours: run the handler
		}
		if !now.Before(existing.ExpiresAt) {
			if err := s.Store.Idempotency.Release(c.Request.Context(), existing.ID); err != nil {
				Internal(c, err)
				return
			}
			continue
		}
		if existing.State == store.IdempotencyPending && now.Sub(existing.CreatedAt) >= idempotencyLease && existing.RequestHash == hash {
			// The try holding it died: take it over, keeping its id (NewID), so that this try
			// completes what that one began instead of creating it twice.
			won, err := s.Store.Idempotency.Relet(c.Request.Context(), existing, now)
			if err != nil {
				Internal(c, err)
				return
			}
			if won {
				rec = existing
				break
			}
			continue
		}
		if existing.RequestHash != hash {
			FailWithReason(c, http.StatusUnprocessableEntity, MsgReplay, MsgIdempotencyMismatch)
			return
		}
		if existing.State == store.IdempotencyPending {
			existing, err = s.awaitIdempotency(c, existing.ID, deadline)
			if err != nil {
				if c.Request.Context().Err() == nil && errors.Is(err, context.DeadlineExceeded) {
					FailWithReason(c, http.StatusConflict, MsgReplay, MsgIdempotencyInFlight)
				} else if c.Request.Context().Err() == nil {
					Internal(c, err)
				}
				return
			}
			if existing == nil {
				continue // released: the first request failed; try ourselves
			}
		}
		replay(c, existing)
		return
	}
	c.Set(ctxIdempotencyID, rec.ID)
	w := capture(c)
	done := false
	defer func() {
		if !done { // the handler panicked: forget, so a retry can run
			_ = s.Store.Idempotency.Release(context.WithoutCancel(c.Request.Context()), rec.ID)
		}
	}()
	next()
	done = true
	ctx := context.WithoutCancel(c.Request.Context())
	status := c.Writer.Status()
	var err error
	if b := w.body(); status >= 200 && status <= 299 && json.Valid(b) {
		err = s.Store.Idempotency.Complete(ctx, rec.ID, status, b)
	} else {
		err = s.Store.Idempotency.Release(ctx, rec.ID)
	}
	if err != nil {
		Logger(c).Error("idempotency record", "externalId", extID, "error", err)
	}
}

// idempotencyEndpoint names the endpoint of a record: method and path, or, for a path too long for
// the column, method and the path's SHA-256, so a long id in the path never fails the insert.
func idempotencyEndpoint(method, path string) string {
	e := method + " " + path
	if len(e) <= 200 {
		return e
	}
	sum := sha256.Sum256([]byte(path))
	return method + " sha256:" + hex.EncodeToString(sum[:])
}

// awaitIdempotency polls record id until it is done (returned), released (nil), or the deadline
// passes (context.DeadlineExceeded).
func (s *Server) awaitIdempotency(c *gin.Context, id string, deadline time.Time) (*store.IdempotencyRecord, error) {
	t := time.NewTicker(idempotencyPoll)
	defer t.Stop()
	for {
		select {
		case <-c.Request.Context().Done():
			return nil, c.Request.Context().Err()
		case <-t.C:
		}
		rec, err := s.Store.Idempotency.Get(c.Request.Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if rec.State == store.IdempotencyDone {
			return rec, nil
		}
		if time.Now().After(deadline) {
			return nil, context.DeadlineExceeded
		}
	}
}

// replay answers the remembered response with "idempotent": true added at the top level.
func replay(c *gin.Context, rec *store.IdempotencyRecord) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body, &top); err != nil || top == nil {
		Internal(c, err)
		return
	}
	top["idempotent"] = json.RawMessage("true")
	out, _ := json.Marshal(top)
	c.Set(ctxReplayed, true)
	c.Data(rec.Status, "application/json; charset=utf-8", out)
	c.Abort()
}

// idempotencyKey reads the top-level externalId of a JSON object body (present reports whether
// the field exists; a non-string value yields "") and the SHA-256 of the body's canonical form, so
// whitespace and key order do not make two bodies differ. A body that is not a JSON object has no
// key: the handler validates it.
func idempotencyKey(body []byte) (extID string, present bool, hash string) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return "", false, ""
	}
	raw, ok := top["externalId"]
	if !ok || bytes.Equal(raw, []byte("null")) {
		return "", false, ""
	}
	_ = json.Unmarshal(raw, &extID)
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", false, ""
	}
	canon, _ := json.Marshal(v) // maps marshal with sorted keys
	sum := sha256.Sum256(canon)
	return extID, true, hex.EncodeToString(sum[:])
}

// purgeIdempotency deletes records whose window ended, at most once a minute per process.
func (s *Server) purgeIdempotency(c *gin.Context, now time.Time) {
	if !s.sec.due(&s.sec.idempotencyPurged, now, time.Minute) {
		return
	}
	if err := s.Store.Idempotency.Purge(c.Request.Context(), now); err != nil {
		Logger(c).Warn("purge idempotency records", "error", err)
	}
}

// RandomID is prefix plus 24 random hex characters, for internal records.
func RandomID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
