package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/store"
)

// The error strings of SPEC 5.7 and 7.3. Handlers use these, never their own spelling.
const (
	MsgMissingBearer    = "missing or invalid Bearer"
	MsgKeyExpired       = "key expired"
	MsgValidation       = "validation failed"
	MsgNotFound         = "not found"
	MsgRateLimited      = "rate limit exceeded"
	MsgNotBound         = "api_key_not_bound_to_user"
	MsgFourEyes         = "four-eyes violation: drafter cannot submit"
	MsgInternal         = "internal server error"
	MsgUnavailable      = "service unavailable"
	MsgTooLarge         = "payload too large"
	MsgUnsupportedMedia = "unsupported media type"
	MsgMethodNotAllowed = "method not allowed"
	MsgCapability       = "org capability disabled"
	MsgReplay           = "replay detected"

	MsgBadCredentials = "invalid email or password"
	MsgCSRF           = "missing or invalid CSRF token"
	MsgServiceKey     = "service principal keys are managed by the platform"
	// The details.reason of a MsgReplay answer (an idempotency conflict).
	MsgIdempotencyMismatch  = "externalId already used with a different request body"
	MsgIdempotencyInFlight  = "a request with this externalId is still in progress"
	MsgIdempotencyMalformed = "externalId must be a string of 1 to 200 characters"
)

// FieldErrors maps a field path to its messages (SPEC 7.1 details.fieldErrors).
type FieldErrors map[string][]string

// Add records a message for a field.
func (f FieldErrors) Add(field, msg string) { f[field] = append(f[field], msg) }

// Any reports whether any field has an error.
func (f FieldErrors) Any() bool { return len(f) > 0 }

// failure is the one failure envelope of SPEC 2.6.
type failure struct {
	Error   string          `json:"error"`
	Details *failureDetails `json:"details,omitempty"`
}

type failureDetails struct {
	FieldErrors FieldErrors `json:"fieldErrors,omitempty"`
	// Reason explains an error string that is the same for several causes (replay detected).
	Reason string `json:"reason,omitempty"`
}

// OK answers 200 {data}.
func OK(c *gin.Context, data any) { c.JSON(http.StatusOK, gin.H{"data": data}) }

// Created answers 201 {data}; data carries the new resource's id.
func Created(c *gin.Context, data any) { c.JSON(http.StatusCreated, gin.H{"data": data}) }

// Accepted answers 202 {data} for asynchronous work; data carries the id to poll.
func Accepted(c *gin.Context, data any) { c.JSON(http.StatusAccepted, gin.H{"data": data}) }

// NoContent answers 204 with no body.
func NoContent(c *gin.Context) { c.Status(http.StatusNoContent) }

// Page is the offset-style list envelope of SPEC 2.6.
type Page struct {
	Data  any      `json:"data"`
	Total int64    `json:"total"`
	Page  int      `json:"page"`
	Limit int      `json:"limit"`
	Meta  PageMeta `json:"meta"`
	// Summary holds aggregate counts when the caller asked for summary=true.
	Summary map[string]int64 `json:"summary,omitempty"`
}

// PageMeta carries the number of pages.
type PageMeta struct {
	Pages int64 `json:"pages"`
}

// List answers an offset-paginated list.
func List(c *gin.Context, rows any, total int64, page, limit int, summary map[string]int64) {
	pages := int64(0)
	if limit > 0 {
		pages = (total + int64(limit) - 1) / int64(limit)
	}
	c.JSON(http.StatusOK, Page{Data: rows, Total: total, Page: page, Limit: limit, Meta: PageMeta{Pages: pages}, Summary: summary})
}

// CursorPage is the cursor-style list envelope of SPEC 2.6.
type CursorPage struct {
	Rows       any              `json:"rows"`
	NextCursor *string          `json:"nextCursor"`
	Summary    map[string]int64 `json:"summary,omitempty"`
}

// CursorList answers a cursor-paginated list; next is "" at the end.
func CursorList(c *gin.Context, rows any, next string, summary map[string]int64) {
	p := CursorPage{Rows: rows, Summary: summary}
	if next != "" {
		p.NextCursor = &next
	}
	c.JSON(http.StatusOK, p)
}

// Fail answers the failure envelope and stops the handler chain.
func Fail(c *gin.Context, status int, msg string) {
	c.AbortWithStatusJSON(status, failure{Error: msg})
}

// FailWithReason answers the failure envelope with details.reason explaining msg.
func FailWithReason(c *gin.Context, status int, msg, reason string) {
	c.AbortWithStatusJSON(status, failure{Error: msg, Details: &failureDetails{Reason: reason}})
}

// RateLimited answers 429 {error: rate limit exceeded, bucket, limit} (SPEC 8.2); the caller has
// set Retry-After.
func RateLimited(c *gin.Context, bucket string, limit int) {
	c.AbortWithStatusJSON(http.StatusTooManyRequests, gin.H{"error": MsgRateLimited, "bucket": bucket, "limit": limit})
}

// NotReady answers 503 {error: service unavailable, checks} for the readiness probe; checks
// names the state of each dependency.
func NotReady(c *gin.Context, checks map[string]string) {
	c.AbortWithStatusJSON(http.StatusServiceUnavailable, gin.H{"error": MsgUnavailable, "checks": checks})
}

// ValidationFailed answers 400 validation failed with every bad field.
func ValidationFailed(c *gin.Context, fe FieldErrors) {
	failFields(c, http.StatusBadRequest, MsgValidation, fe)
}

// Unprocessable answers 422 msg with the fields that break the business rule (SPEC 7.2: valid
// input that the resource's state refuses).
func Unprocessable(c *gin.Context, msg string, fe FieldErrors) {
	failFields(c, http.StatusUnprocessableEntity, msg, fe)
}

// failFields answers the failure envelope with details.fieldErrors.
func failFields(c *gin.Context, status int, msg string, fe FieldErrors) {
	c.AbortWithStatusJSON(status, failure{Error: msg, Details: &failureDetails{FieldErrors: fe}})
}

// StateConflict answers 409 state conflict: cannot transition from → to (SPEC 3.5).
func StateConflict(c *gin.Context, from, to string) {
	Fail(c, http.StatusConflict, StateConflictMessage(from, to))
}

// StateConflictMessage is the SPEC 3.5 message for a rejected move.
func StateConflictMessage(from, to string) string {
	return fmt.Sprintf("state conflict: cannot transition %s → %s", from, to)
}

// Loaded reports whether a store lookup succeeded. Otherwise it answers 404 not found for
// store.ErrNotFound (absent, or another organisation's) or 500 for anything else, and returns false:
//
//	k, err := s.Store.Keys.Get(c.Request.Context(), orgID, PathID(c))
//	if !Loaded(c, err) {
//		return
//	}
func Loaded(c *gin.Context, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, store.ErrNotFound):
		NotFound(c)
	default:
		Internal(c, err)
	}
	return false
}

// NotFound answers 404 not found: the same for an absent id and another organisation's.
func NotFound(c *gin.Context) { Fail(c, http.StatusNotFound, MsgNotFound) }

// Internal logs err with the request id and answers a 500 envelope that leaks nothing.
func Internal(c *gin.Context, err error) {
	Logger(c).Error("internal error", "error", err)
	Fail(c, http.StatusInternalServerError, MsgInternal)
}

// Timestamp formats a time the one way the API does: UTC ISO 8601 with milliseconds.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
