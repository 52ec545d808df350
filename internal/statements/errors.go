package statements

import (
	"errors"

	"github.com/svcplatform/svc/internal/documents"
)

// Stage names a pipeline stage; it is the value of analysis.failed's "stage". Errors are
// the documents engine's *documents.Error, so that both engines' failures read the same.
type Stage = documents.Stage

// The pipeline stages, in order (inspect and text are the documents engine's).
const (
	StageInspect         = documents.StageInspect
	StageText            = documents.StageText
	StageDetect    Stage = "detect"
	StageParse     Stage = "parse"
	StageReconcile Stage = "reconcile"
	StageInsights  Stage = "insights"
	StageDecide    Stage = "decide"
)

// Sentinel error kinds; test with errors.Is.
var (
	// ErrNotStatement: the file reads but holds no recognisable statement.
	ErrNotStatement = errors.New("not a bank statement")
	// ErrMalformed: the file claims a format (CSV, OFX, CAMT) but breaks its rules.
	ErrMalformed = errors.New("malformed statement file")
	// ErrTooLarge: the file has more pages or rows than the engine accepts.
	ErrTooLarge = errors.New("statement too large")
)

func stageErr(stage Stage, kind error, msg string, cause error) *documents.Error {
	return &documents.Error{Stage: stage, Kind: kind, Msg: msg, Err: cause}
}
