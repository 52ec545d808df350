// Package statements holds the bank statement analysis product's activities: the
// pipeline's stages and bookkeeping. Activities are idempotent, because Temporal may run
// one twice: intermediate results are content-addressed blobs, writes are conditional and
// events keep the ids the workflow derived.
package statements

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/secrets"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	stmtwf "github.com/svcplatform/svc/workflows/statements"
)

// MaxIntermediateBytes caps an intermediate result read back from the blob store (the text
// of sixty OCR'd pages with their word confidences, or thousands of transactions).
const MaxIntermediateBytes = 128 << 20

// Activities implements the activities of the AnalysisPipeline and AnalysisCorrection
// workflows.
type Activities struct {
	// Store holds analyses, their versions, templates and category rules.
	Store *store.Store
	// Blobs holds the uploaded files and the intermediate results.
	Blobs blobs.Store
	// Reader runs the documents engine (qpdf, pdftotext, tesseract) and the parsers.
	Reader *stmt.Reader
	// Box opens the passwords the API stored sealed (config secrets.key).
	Box *secrets.Box
	// Publisher publishes the events the bookkeeping activities carry.
	Publisher activities.Publisher
	// MaxFileBytes caps a file a stage reads (config documents.max_upload_bytes).
	MaxFileBytes int64
	// Logger receives the causes of stage failures; never a password nor a statement's text.
	Logger *slog.Logger
	// Now is the clock of the store writes (time.Now when nil).
	Now func() time.Time
}

// AcceptAnalysis moves a stored analysis from uploaded to processing.
func (a *Activities) AcceptAnalysis(ctx context.Context, ref stmtwf.AnalysisRef) error {
	if err := a.Store.Statements.UpdateAnalysis(ctx, ref.OrgID, ref.AnalysisID, store.AnalysisUpdate{Status: stmt.StatusProcessing}, a.now()); err != nil {
		return fmt.Errorf("accept %s: %w", ref.AnalysisID, err)
	}
	return nil
}

// InspectAnalysis checks that every file opens and is of a kind the parsers read. A PDF
// that needs a user password it does not have (or has wrong) is a result, not an error.
func (a *Activities) InspectAnalysis(ctx context.Context, ref stmtwf.AnalysisRef) (stmtwf.InspectResult, error) {
	an, pw, err := a.load(ctx, ref)
	if err != nil {
		return stmtwf.InspectResult{}, err
	}
	var res stmtwf.InspectResult
	for i := range an.Files {
		data, err := a.file(ctx, an, i)
		if err != nil {
			return stmtwf.InspectResult{}, err
		}
		fr, err := a.Reader.InspectFile(ctx, i, data, pw)
		if stmt.NeedsPassword(err) {
			msg := "a PDF of the analysis is encrypted: a password is needed to open it"
			if pw != "" {
				msg = "the password does not open the PDF"
			}
			return stmtwf.InspectResult{PasswordRequired: true, Message: msg}, nil
		}
		if err != nil {
			return stmtwf.InspectResult{}, a.stageError(ctx, an, i, err)
		}
		res.Kinds = append(res.Kinds, fr.Kind)
		res.Pages += fr.Pages
	}
	return res, nil
}

// ReadAnalysisText reads the text of every PDF of the analysis (the documents engine: the
// text layer, or OCR of scanned pages) and keeps each in the blob store. It heartbeats
// while OCR runs.
func (a *Activities) ReadAnalysisText(ctx context.Context, ref stmtwf.AnalysisRef) (stmtwf.TextSummary, error) {
	stop := activities.Heartbeat(ctx, 10*time.Second)
	defer stop()
	an, pw, err := a.load(ctx, ref)
	if err != nil {
		return stmtwf.TextSummary{}, err
	}
	sum := stmtwf.TextSummary{TextKeys: make([]string, len(an.Files)), MeanConfidence: 1}
	for i, f := range an.Files {
		if f.Kind != string(stmt.KindPDF) {
			continue
		}
		data, err := a.file(ctx, an, i)
		if err != nil {
			return stmtwf.TextSummary{}, err
		}
		text, err := a.Reader.Text(ctx, data, pw)
		if err != nil {
			return stmtwf.TextSummary{}, a.stageError(ctx, an, i, err)
		}
		if sum.TextKeys[i], err = a.putJSON(ctx, text); err != nil {
			return stmtwf.TextSummary{}, fmt.Errorf("store the text of %s: %w", an.ID, err)
		}
		sum.Pages += text.Pages
		sum.OCRPages += text.OCRPages
		sum.MeanConfidence = min(sum.MeanConfidence, text.MeanConfidence)
	}
	return sum, nil
}

// ParseAnalysis detects the bank of every PDF (the organisation's templates first, then the
// built-in ones) and parses the transactions of every file; the file results are kept in
// the blob store.
func (a *Activities) ParseAnalysis(ctx context.Context, in stmtwf.ParseInput) (stmtwf.ParseSummary, error) {
	an, _, err := a.load(ctx, in.Ref)
	if err != nil {
		return stmtwf.ParseSummary{}, err
	}
	templates, err := a.Store.Statements.Templates(ctx, an.OrgID)
	if err != nil {
		return stmtwf.ParseSummary{}, fmt.Errorf("templates of %s: %w", an.OrgID, err)
	}
	var sum stmtwf.ParseSummary
	files := make([]*stmt.FileResult, len(an.Files))
	for i, f := range an.Files {
		fr := &stmt.FileResult{File: i, Kind: stmt.Kind(f.Kind), MeanConfidence: 1}
		var data []byte
		var text *docintel.TextResult
		if fr.Kind == stmt.KindPDF {
			if i >= len(in.TextKeys) || in.TextKeys[i] == "" {
				return stmtwf.ParseSummary{}, temporal.NewNonRetryableApplicationError("the PDF's text was not read", stmtwf.ErrTypeAnalysisUnreadable, nil, stmt.StageText)
			}
			text = &docintel.TextResult{}
			if err := a.getJSON(ctx, in.TextKeys[i], text); err != nil {
				return stmtwf.ParseSummary{}, fmt.Errorf("text of %s: %w", an.ID, err)
			}
			fr.Pages = text.Pages
		}
		if data, err = a.file(ctx, an, i); err != nil {
			return stmtwf.ParseSummary{}, err
		}
		if fr.Kind == stmt.KindPDF {
			fr.Meta = stmt.ReadPDFMeta(data)
		}
		if err := stmt.Parse(fr, data, text, templates, ""); err != nil {
			return stmtwf.ParseSummary{}, a.stageError(ctx, an, i, err)
		}
		if fr.Detection != nil {
			sum.Banks = append(sum.Banks, fr.Detection.Bank)
		}
		for _, st := range fr.Statements {
			sum.Statements++
			sum.Transactions += len(st.Transactions)
		}
		files[i] = fr
	}
	if sum.Key, err = a.putJSON(ctx, files); err != nil {
		return stmtwf.ParseSummary{}, fmt.Errorf("store the statements of %s: %w", an.ID, err)
	}
	return sum, nil
}

// AnalyzeAnalysis reconciles the parsed statements, computes the insights (the
// organisation's category rules first) and the tamper signals (the unencrypted PDFs' bytes
// for the font checks), decides, and keeps the result in the blob store.
func (a *Activities) AnalyzeAnalysis(ctx context.Context, in stmtwf.AnalyzeInput) (stmtwf.AnalyzeSummary, error) {
	an, pw, err := a.load(ctx, in.Ref)
	if err != nil {
		return stmtwf.AnalyzeSummary{}, err
	}
	var files []*stmt.FileResult
	if err := a.getJSON(ctx, in.ParsedKey, &files); err != nil {
		return stmtwf.AnalyzeSummary{}, fmt.Errorf("statements of %s: %w", an.ID, err)
	}
	templates, err := a.Store.Statements.Templates(ctx, an.OrgID)
	if err != nil {
		return stmtwf.AnalyzeSummary{}, fmt.Errorf("templates of %s: %w", an.OrgID, err)
	}
	rules, err := a.Store.Statements.CategoryRules(ctx, an.OrgID)
	if err != nil {
		return stmtwf.AnalyzeSummary{}, fmt.Errorf("category rules of %s: %w", an.OrgID, err)
	}
	data := make([][]byte, len(files))
	for i, fr := range files {
		if fr == nil || fr.Kind != stmt.KindPDF {
			continue
		}
		if fr.Detection != nil {
			fr.Detection.Template = stmt.TemplateOf(fr, templates)
		}
		if pw == "" { // an encrypted PDF's content streams cannot be read for the font checks
			if data[i], err = a.file(ctx, an, i); err != nil {
				return stmtwf.AnalyzeSummary{}, err
			}
		}
	}
	res := stmt.Analyze(files, data, rules.Rules)
	key, err := a.putJSON(ctx, res)
	if err != nil {
		return stmtwf.AnalyzeSummary{}, fmt.Errorf("store the result of %s: %w", an.ID, err)
	}
	sum := stmtwf.AnalyzeSummary{Key: key, Status: res.Status, Reasons: res.Reasons, Statements: len(res.Statements),
		Reconciled: res.Reconciliation.OK, Risk: res.Signals.Risk}
	for _, st := range res.Statements {
		sum.Transactions += len(st.Transactions)
	}
	return sum, nil
}

// RecordAnalysis applies a pipeline write to the analysis and publishes its events.
func (a *Activities) RecordAnalysis(ctx context.Context, rec stmtwf.AnalysisRecord) error {
	u := store.AnalysisUpdate{Status: rec.Status, FailedStage: string(rec.FailedStage), ErrorMessage: rec.ErrorMessage,
		ForgetPassword: rec.ForgetPassword, CompletedAt: rec.CompletedAt}
	if err := a.Store.Statements.UpdateAnalysis(ctx, rec.Ref.OrgID, rec.Ref.AnalysisID, u, a.now()); err != nil {
		return fmt.Errorf("record %s: %w", rec.Ref.AnalysisID, err)
	}
	for _, ev := range rec.Events {
		if err := a.publish(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// FinishAnalysis stores the decided result as version 1 (forgetting the password) and
// publishes analysis.completed or analysis.requires_review.
func (a *Activities) FinishAnalysis(ctx context.Context, in stmtwf.FinishAnalysisInput) error {
	var res stmt.Result
	if err := a.getJSON(ctx, in.ResultKey, &res); err != nil {
		return fmt.Errorf("result of %s: %w", in.Ref.AnalysisID, err)
	}
	if _, err := a.Store.Statements.DecideAnalysis(ctx, in.Ref.OrgID, in.Ref.AnalysisID, &res, in.CompletedAt); err != nil {
		return fmt.Errorf("finish %s: %w", in.Ref.AnalysisID, err)
	}
	return a.publish(ctx, in.Event)
}

// CorrectAnalysis applies an analyst's corrections to version PreviousVersion, reconciles
// and analyses again (the organisation's current category rules), stores the next version
// with the actor and publishes analysis.corrected.
func (a *Activities) CorrectAnalysis(ctx context.Context, rec stmtwf.CorrectionRecord) error {
	c := rec.Correction
	an, err := a.Store.Statements.GetAnalysis(ctx, c.OrgID, c.AnalysisID)
	if errors.Is(err, store.ErrNotFound) {
		return workflows.StateConflictError("unknown", string(stmt.StatusCompleted))
	}
	if err != nil {
		return err
	}
	if an.Version == c.PreviousVersion+1 {
		if v, verr := a.Store.Statements.GetVersion(ctx, c.OrgID, c.AnalysisID, an.Version); verr == nil && v.ActorUserID == c.ActorUserID {
			return a.publish(ctx, rec.Event) // a retry after the write
		}
	}
	if an.Version != c.PreviousVersion || an.Result == nil || !stmt.Status(an.Status).Correctable() {
		return workflows.StateConflictError(an.Status, string(stmt.StatusCompleted))
	}
	rules, err := a.Store.Statements.CategoryRules(ctx, c.OrgID)
	if err != nil {
		return fmt.Errorf("category rules of %s: %w", c.OrgID, err)
	}
	next, fe := an.Result.Corrected(c.Corrections, rules.Rules)
	if fe != nil {
		return temporal.NewNonRetryableApplicationError("the corrections name no transaction of this analysis", workflows.ErrTypeInvalidArgument, nil)
	}
	var se *store.StateError
	switch _, err := a.Store.Statements.CorrectAnalysis(ctx, c.OrgID, c.AnalysisID, c.PreviousVersion, next, c.Corrections, c.ActorUserID, c.CorrectedAt); {
	case errors.As(err, &se):
		return workflows.StateConflictError(se.Status, string(next.Status))
	case err != nil:
		return fmt.Errorf("correct %s: %w", c.AnalysisID, err)
	}
	return a.publish(ctx, rec.Event)
}

// load reads the analysis and its password (opened from its sealed form).
func (a *Activities) load(ctx context.Context, ref stmtwf.AnalysisRef) (*store.Analysis, docintel.Password, error) {
	an, err := a.Store.Statements.GetAnalysis(ctx, ref.OrgID, ref.AnalysisID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", temporal.NewNonRetryableApplicationError("the analysis no longer exists", stmtwf.ErrTypeAnalysisUnreadable, nil)
	}
	if err != nil {
		return nil, "", err
	}
	var pw docintel.Password
	if an.PasswordSealed != "" {
		if a.Box == nil {
			return nil, "", errors.New("statements: no secrets box to open the password (config secrets.key)")
		}
		plain, err := a.Box.Open(an.PasswordSealed, store.AnalysisPasswordContext(an.ID))
		if err != nil {
			// Sealed with another key (secrets.key changed): as good as no password.
			a.logger().Warn("analysis password does not open", "analysisId", an.ID, "error", err)
		} else {
			pw = docintel.Password(plain)
		}
	}
	return an, pw, nil
}

// file reads file i of the analysis from the blob store.
func (a *Activities) file(ctx context.Context, an *store.Analysis, i int) ([]byte, error) {
	limit := a.MaxFileBytes
	if limit <= 0 {
		limit = 20 << 20
	}
	data, err := blobs.ReadAll(ctx, a.Blobs, an.Files[i].BlobKey, limit)
	switch {
	case errors.Is(err, blobs.ErrNotFound):
		return nil, temporal.NewNonRetryableApplicationError("a stored file is missing", stmtwf.ErrTypeAnalysisUnreadable, nil, stmt.StageInspect)
	case errors.Is(err, blobs.ErrTooLarge):
		return nil, temporal.NewNonRetryableApplicationError("a file is larger than the upload limit", stmtwf.ErrTypeAnalysisUnreadable, nil, stmt.StageInspect)
	}
	return data, err
}

// putJSON keeps v in the blob store and returns its key (content-addressed: a retry keeps
// the same key).
func (a *Activities) putJSON(ctx context.Context, v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	b, err := blobs.Put(ctx, a.Blobs, bytes.NewReader(raw), MaxIntermediateBytes)
	return b.Key, err
}

func (a *Activities) getJSON(ctx context.Context, key string, v any) error {
	raw, err := blobs.ReadAll(ctx, a.Blobs, key, MaxIntermediateBytes)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// stageError turns an engine error about file i into the activity's error: not retried
// when retrying cannot help, retried for tool failures; the message (naming the file when
// there are several) is safe to show, the stage travels in the details, the cause goes to
// the log.
func (a *Activities) stageError(ctx context.Context, an *store.Analysis, i int, err error) error {
	stage := stmt.StageOf(err)
	a.logger().Warn("analysis stage failed", "analysisId", an.ID, "orgId", an.OrgID, "file", i, "stage", stage, "error", err)
	msg := stmt.Message(err)
	if len(an.Files) > 1 {
		msg = fmt.Sprintf("%s: %s", an.Files[i].Filename, msg)
	}
	switch {
	case stmt.IsPermanent(err):
		return temporal.NewNonRetryableApplicationError(msg, stmtwf.ErrTypeAnalysisUnreadable, nil, stage)
	case errors.Is(err, docintel.ErrTool):
		return temporal.NewApplicationError(msg, stmtwf.ErrTypeAnalysisTool, stage)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return err
}

func (a *Activities) publish(ctx context.Context, ev workflows.PublishEventInput) error {
	return activities.Publish(ctx, a.Publisher, "statements", ev)
}

func (a *Activities) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Activities) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}
