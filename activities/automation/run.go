package automation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/svcplatform/svc/activities"
	docacts "github.com/svcplatform/svc/activities/documents"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	autowf "github.com/svcplatform/svc/workflows/automation"
)

// RunDeps are what the built-in automations read besides the model: documents' text and
// passwords, and the case context.
type RunDeps struct {
	// Blobs holds the documents' text (the pipeline's TextKey).
	Blobs blobs.Store
	// Box opens a document's sealed password, so that it is redacted from the prompt.
	Box *secrets.Box
	// Cases reads a case and stores what the case automations wrote on it; nil until the
	// cases product provides it, and then case summaries and SAR drafts fail with a clear error.
	Cases automation.Cases
}

// errNoCases is the final error of a case automation without a case source.
var errNoCases = errors.New("case automations need the cases product, which is not available in this deployment")

// RunAutomation runs one built-in automation: it loads the material by reference, asks the
// model and stores the result, so that neither the material nor the answer enters the
// workflow's history. A document-fields result is stored as a new extraction of the
// document in requires_review, never extracted: a person confirms what a model read.
func (a *Activities) RunAutomation(ctx context.Context, in autowf.RunInput) (autowf.RunOutcome, error) {
	attempt := AttemptOf(ctx)
	if err := a.Store.Automation.MarkRunRunning(ctx, in.OrgID, in.RunID); err != nil {
		return autowf.RunOutcome{}, err
	}
	prompt, secretValues, doc, err := a.material(ctx, in)
	if err != nil {
		return autowf.RunOutcome{}, TemporalError(err, attempt)
	}
	out, err := a.Step(ctx, in.OrgID, store.AIExchange{ID: fmt.Sprintf("%s:%d", in.RunID, attempt), OrgID: in.OrgID, RunID: in.RunID}, prompt, secretValues...)
	if err != nil {
		return autowf.RunOutcome{}, TemporalError(err, attempt)
	}
	res := autowf.RunOutcome{Model: out.Model, Usage: out.Usage}
	result := out.Answer
	switch in.Kind {
	case automation.KindDocumentFields:
		fields := automation.DocumentFields(out.Answer)
		if err := a.storeExtraction(ctx, in, doc, fields); err != nil {
			return autowf.RunOutcome{}, TemporalError(err, attempt)
		}
		res.ResultStatus = string(docintel.StatusRequiresReview)
		result = fields
	case automation.KindCaseSummary, automation.KindSARDraft:
		if err := a.storeOnCase(ctx, in, out); err != nil {
			return autowf.RunOutcome{}, TemporalError(err, attempt)
		}
	}
	if err := a.Store.Automation.SaveRunResult(ctx, in.OrgID, in.RunID, result, out.Model, out.Usage); err != nil {
		return autowf.RunOutcome{}, err
	}
	return res, nil
}

// material builds the run's prompt and lists the secret values to redact from it.
func (a *Activities) material(ctx context.Context, in autowf.RunInput) (automation.Prompt, []string, *docSubject, error) {
	switch in.Kind {
	case automation.KindCaseSummary, automation.KindSARDraft:
		if a.Cases == nil {
			return automation.Prompt{}, nil, nil, &automation.InputError{Msg: errNoCases.Error()}
		}
		c, err := a.Cases.CaseContext(ctx, in.OrgID, in.SubjectID)
		if errors.Is(err, automation.ErrCaseNotFound) {
			return automation.Prompt{}, nil, nil, &automation.InputError{Msg: "case " + in.SubjectID + " not found"}
		}
		if err != nil {
			return automation.Prompt{}, nil, nil, err
		}
		if in.Kind == automation.KindSARDraft {
			return automation.SARDraftPrompt(c), nil, nil, nil
		}
		return automation.CaseSummaryPrompt(c), nil, nil, nil
	case automation.KindDocumentFields:
		return a.documentMaterial(ctx, in)
	}
	return automation.Prompt{}, nil, nil, &automation.InputError{Msg: "unknown automation kind " + in.Kind}
}

// documentMaterial reads a document of a custom type, its template and its text.
func (a *Activities) documentMaterial(ctx context.Context, in autowf.RunInput) (automation.Prompt, []string, *docSubject, error) {
	final := func(format string, args ...any) error {
		return &automation.InputError{Msg: fmt.Sprintf(format, args...)}
	}
	doc, err := a.Store.Documents.Get(ctx, in.OrgID, in.SubjectID)
	if errors.Is(err, store.ErrNotFound) {
		return automation.Prompt{}, nil, nil, final("document %s not found", in.SubjectID)
	}
	if err != nil {
		return automation.Prompt{}, nil, nil, err
	}
	templates, err := a.Store.Documents.Templates(ctx, in.OrgID)
	if err != nil {
		return automation.Prompt{}, nil, nil, err
	}
	tmpl := docintel.TemplateFor(doc.Type, templates)
	if tmpl == nil {
		return automation.Prompt{}, nil, nil, final("document %s is of type %q, not a custom document type of the organisation", doc.ID, doc.Type)
	}
	if doc.TextKey == "" || a.Blobs == nil {
		return automation.Prompt{}, nil, nil, final("document %s has no text yet", doc.ID)
	}
	raw, err := blobs.ReadAll(ctx, a.Blobs, doc.TextKey, docacts.MaxTextBytes)
	if err != nil {
		return automation.Prompt{}, nil, nil, fmt.Errorf("text of %s: %w", doc.ID, err)
	}
	var text docintel.TextResult
	if err := json.Unmarshal(raw, &text); err != nil {
		return automation.Prompt{}, nil, nil, fmt.Errorf("text of %s: %w", doc.ID, err)
	}
	in2 := automation.DocumentFieldsInput{DocumentID: doc.ID, Type: doc.Type, Text: text.String()}
	for _, f := range tmpl.Fields {
		in2.Fields = append(in2.Fields, automation.FieldSpec{Name: f.Name, Label: f.Label, Required: f.Required})
	}
	p, err := automation.DocumentFieldsPrompt(in2)
	if err != nil {
		return automation.Prompt{}, nil, nil, final("%v", err)
	}
	var secretValues []string
	if doc.PasswordSealed != "" && a.Box != nil {
		if pw, err := a.Box.Open(doc.PasswordSealed, store.DocumentPasswordContext(doc.ID)); err == nil {
			secretValues = append(secretValues, string(pw))
		}
	}
	return p, secretValues, &docSubject{doc: doc, tmpl: tmpl}, nil
}

// docSubject is the document of a document-fields run and its custom type.
type docSubject struct {
	doc  *store.Document
	tmpl *docintel.Template
}

// storeExtraction stores the model's fields as the document's new extraction, in
// requires_review with confidence 0 (nothing measured it) and the machine_extracted flag. Its id derives from the
// run, so a retried activity stores it once.
func (a *Activities) storeExtraction(ctx context.Context, in autowf.RunInput, subj *docSubject, fields map[string]string) error {
	doc := subj.doc
	x := &store.Extraction{
		ID: ids.DeriveFrom(ids.Extraction, doc.CreatedAt, in.RunID), OrgID: in.OrgID, DocumentID: doc.ID, Type: doc.Type,
		TemplateID: doc.TemplateID, Source: store.SourceModel, Status: string(docintel.StatusRequiresReview),
		Fields: map[string]store.ExtractedField{}, Flags: []string{automation.ReviewFlag}, PreviousExtractionID: doc.LatestExtractionID,
		CreatedAt: time.Now().UTC(),
	}
	for _, f := range subj.tmpl.Fields {
		v, found := fields[f.Name]
		x.Fields[f.Name] = store.ExtractedField{Value: v, Required: f.Required, Found: found}
	}
	err := a.Store.Documents.Correct(ctx, x)
	var se *store.StateError
	if errors.As(err, &se) {
		return &automation.InputError{Msg: fmt.Sprintf("document %s is %s: its fields cannot be replaced now", doc.ID, se.Status)}
	}
	return err
}

// storeOnCase stores a case automation's answer on the case, marked machine-written: the
// summary for the reviewer, or the SAR draft whose drafter is the person who asked for it.
func (a *Activities) storeOnCase(ctx context.Context, in autowf.RunInput, out automation.Outcome) error {
	mark := automation.MachineWritten{AutomationID: in.RunID, Model: out.Model, WrittenAt: time.Now().UTC().Truncate(time.Millisecond)}
	var err error
	if in.Kind == automation.KindSARDraft {
		var d automation.SARDraft
		if d, err = automation.DecodeAnswer[automation.SARDraft](out.Answer); err == nil {
			err = a.Cases.SaveSARDraft(ctx, in.OrgID, in.SubjectID, automation.MachineSARDraft{SARDraft: d, MachineWritten: mark, DraftedBy: in.RequestedBy})
		}
	} else {
		var s automation.CaseSummary
		if s, err = automation.DecodeAnswer[automation.CaseSummary](out.Answer); err == nil {
			err = a.Cases.SaveMachineSummary(ctx, in.OrgID, in.SubjectID, automation.MachineSummary{CaseSummary: s, MachineWritten: mark})
		}
	}
	if errors.Is(err, automation.ErrCaseNotFound) {
		return &automation.InputError{Msg: "case " + in.SubjectID + " not found"}
	}
	return err
}

// FinishAutomation records a run's end and publishes automation.completed or automation.failed.
func (a *Activities) FinishAutomation(ctx context.Context, in autowf.FinishRunInput) error {
	if err := a.Store.Automation.FinishRun(ctx, in.OrgID, in.RunID, in.Status, in.Error, in.CompletedAt); err != nil {
		return fmt.Errorf("finish %s: %w", in.RunID, err)
	}
	return activities.Publish(ctx, a.Publisher, "automation", in.Event)
}
