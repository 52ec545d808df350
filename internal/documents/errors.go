package documents

import (
	"errors"
	"fmt"
)

// Stage names a pipeline stage; it is the value of document.failed's "stage".
type Stage string

// The pipeline stages, in order.
const (
	StageInspect  Stage = "inspect"
	StageText     Stage = "text"
	StageClassify Stage = "classify"
	StageExtract  Stage = "extract"
	StageDecide   Stage = "decide"
)

// Sentinel errors; test with errors.Is on any error returned by a stage.
var (
	// ErrPasswordRequired: the PDF needs a user password and none, or a wrong one, was given.
	ErrPasswordRequired = errors.New("password required")
	// ErrUnsupported: the bytes are not a PDF, PNG, JPEG or TIFF.
	ErrUnsupported = errors.New("unsupported file format")
	// ErrCorrupt: the file claims a supported format but cannot be read (truncated, damaged, too large).
	ErrCorrupt = errors.New("corrupt file")
	// ErrUnknownType: extraction was asked for a document type that is neither built in nor a given template.
	ErrUnknownType = errors.New("unknown document type")
	// ErrTool: an external program crashed or timed out; retrying may help.
	ErrTool = errors.New("tool failure")
	// ErrToolMissing: an external program is not installed on this machine; retrying the
	// document cannot help until it is (the message names the program and the install command).
	ErrToolMissing = errors.New("tool missing")
)

// Error is the error every stage returns: the stage it happened in, a message that is safe
// to show to the API caller (never a password, never a file path), and the cause.
type Error struct {
	Stage Stage
	// Msg is the human readable message for document.failed's errorMessage.
	Msg string
	// Kind is one of the sentinel errors above.
	Kind error
	// Err is the underlying cause, for logs; it may be nil.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Stage, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Stage, e.Msg)
}

// Unwrap exposes both the kind (for errors.Is with the sentinels) and the cause.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// Permanent reports whether retrying the same input can never succeed (corrupt, unsupported,
// wrong password, unknown type, a program that is not installed). Tool failures are not
// permanent.
func (e *Error) Permanent() bool {
	return !errors.Is(e.Kind, ErrTool)
}

// IsPermanent reports whether err is a stage error that retrying cannot fix.
func IsPermanent(err error) bool {
	var se *Error
	return errors.As(err, &se) && se.Permanent()
}

// StageOf returns the stage an error happened in, or "" when err is not a stage error.
func StageOf(err error) Stage {
	var se *Error
	if errors.As(err, &se) {
		return se.Stage
	}
	return ""
}

// Message returns the message to show for err (document.failed's errorMessage): a stage
// error's Msg, which never holds a password or a file path, or a generic text.
func Message(err error) string {
	var se *Error
	if errors.As(err, &se) {
		return se.Msg
	}
	return "the document could not be processed"
}

func stageErr(stage Stage, kind error, msg string, cause error) *Error {
	return &Error{Stage: stage, Kind: kind, Msg: msg, Err: cause}
}
