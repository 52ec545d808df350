package api

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
)

// Helpers of the multipart upload endpoints (documents, statements): the products read the
// parts themselves, streaming files to the blob store, and share these answers.

// MaxFilename is the longest file name kept (longer ones are cut).
const MaxFilename = 255

// UploadError is the answer an upload parser gives instead of an upload: a status and
// message, or field errors (400).
type UploadError struct {
	Status int
	Msg    string
	Fields FieldErrors
}

// Answer writes the error's answer.
func (e *UploadError) Answer(c *gin.Context) {
	if e.Fields.Any() {
		ValidationFailed(c, e.Fields)
		return
	}
	Fail(c, e.Status, e.Msg)
}

// UploadFieldError is a 400 naming one field.
func UploadFieldError(field, msg string) *UploadError {
	return &UploadError{Fields: FieldErrors{field: {msg}}}
}

// UploadBodyError is the answer to a body that could not be read: 413 past the route's
// cap, 400 for a malformed or cut multipart body.
func UploadBodyError(err error) *UploadError {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &UploadError{Status: http.StatusRequestEntityTooLarge, Msg: MsgTooLarge}
	}
	return UploadFieldError("body", "is not a complete multipart/form-data body")
}

// ReadFormField reads a text part of at most limit bytes; msg says what is wrong with its
// value (too long, not UTF-8).
func ReadFormField(part *multipart.Part, limit int) (v, msg string, uerr *UploadError) {
	b, err := io.ReadAll(io.LimitReader(part, int64(limit)+1))
	if err != nil {
		return "", "", UploadBodyError(err)
	}
	switch {
	case len(b) > limit:
		return "", fmt.Sprintf("must be at most %d bytes", limit), nil
	case !utf8.Valid(b):
		return "", "must be UTF-8 text", nil
	}
	return string(b), "", nil
}

// ErrReader remembers the first error its reader returned, so that a failure to store a
// file can be told apart from the client's broken body.
type ErrReader struct {
	R   io.Reader
	Err error
}

func (r *ErrReader) Read(p []byte) (int, error) {
	n, err := r.R.Read(p)
	if err != nil && r.Err == nil {
		r.Err = err
	}
	return n, err
}

// Failed reports whether the reader stopped on an error other than the end.
func (r *ErrReader) Failed() bool { return r.Err != nil && !errors.Is(r.Err, io.EOF) }

// CleanFilename keeps the base name of a client's file name, as valid UTF-8 without control
// characters and at most MaxFilename bytes; "upload" when nothing is left.
func CleanFilename(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(path.Clean("/" + name)[1:])
	for len(name) > MaxFilename {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || name == "." || name == ".." {
		return "upload"
	}
	return name
}
