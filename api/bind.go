package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"
)

// BindJSON decodes the request body into dst (a pointer to a struct with json tags), rejecting
// unknown fields and trailing data. On failure it answers 400 (or 413) and returns false.
// An empty body decodes as {}.
func BindJSON(c *gin.Context, dst any) bool {
	body, ok := RawBody(c)
	if !ok {
		return false
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		ValidationFailed(c, jsonFieldErrors(err, dst))
		return false
	}
	if dec.More() {
		ValidationFailed(c, FieldErrors{"body": {"must be one JSON value"}})
		return false
	}
	return true
}

// RawBody reads the whole (size-capped) request body once and keeps it for later readers.
func RawBody(c *gin.Context) ([]byte, bool) {
	if b, ok := c.Get(ctxRawBody); ok {
		return b.([]byte), true
	}
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			Fail(c, http.StatusRequestEntityTooLarge, MsgTooLarge)
			return nil, false
		}
		Fail(c, http.StatusBadRequest, "could not read request body")
		return nil, false
	}
	c.Set(ctxRawBody, body)
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

func jsonFieldErrors(err error, dst any) FieldErrors {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return FieldErrors{field: {fmt.Sprintf("must be %s", jsonKind(typeErr.Type))}}
	case errors.As(err, &syntaxErr):
		return FieldErrors{"body": {fmt.Sprintf("malformed JSON at byte %d", syntaxErr.Offset)}}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return FieldErrors{"body": {"malformed JSON: unexpected end"}}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return FieldErrors{name: {"unknown field"}}
	default:
		_ = dst
		return FieldErrors{"body": {"malformed JSON"}}
	}
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	if t.String() == "json.Number" {
		return "a number"
	}
	return "of another type"
}

// PathID is the :id path parameter.
func PathID(c *gin.Context) string { return c.Param("id") }
