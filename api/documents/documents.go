package documents

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
)

// Documents (documents product, SPEC 3.2 and 6.5): an upload is stored (blob store and a Document row,
// status uploaded) and its DocumentPipeline workflow started (workflow id = document id); the
// pipeline's activities keep the row in step, so lists and details read the store only. A
// password for an encrypted PDF is stored sealed and announced to the waiting pipeline by
// the document-password Update (the password itself never enters Temporal). A correction is
// a DocumentCorrection workflow, whose answer the API waits for. The upload itself is in
// documents_upload.go.

// documentStatuses are the accepted values of the status filter.
func documentStatuses() []string {
	var out []string
	for _, st := range docintel.Statuses() {
		out = append(out, string(st))
	}
	return out
}

// documentView is a document as lists show it.
type documentView struct {
	ID                       string   `json:"id"`
	Status                   string   `json:"status"`
	Type                     *string  `json:"type"`
	Filename                 string   `json:"filename"`
	Format                   string   `json:"format"`
	Size                     int64    `json:"size"`
	SHA256                   string   `json:"sha256"`
	ExternalRef              *string  `json:"externalRef"`
	ExternalID               *string  `json:"externalId"`
	ClassificationConfidence *float64 `json:"classificationConfidence"`
	TemplateID               *string  `json:"templateId"`
	ConfidenceScore          *float64 `json:"confidenceScore"`
	Flags                    []string `json:"flags"`
	FailedStage              *string  `json:"failedStage"`
	ErrorMessage             *string  `json:"errorMessage"`
	LatestExtractionID       *string  `json:"latestExtractionId"`
	UploadedBy               *string  `json:"uploadedBy"`
	CreatedAt                string   `json:"createdAt"`
	UpdatedAt                string   `json:"updatedAt"`
	CompletedAt              *string  `json:"completedAt"`
}

// documentDetailView is one document with its latest extraction.
type documentDetailView struct {
	documentView
	LatestExtraction *extractionView `json:"latestExtraction"`
}

// extractionView is one extraction: fields holds the values found (the shape of
// document.extracted's fields), fieldDetails every field with its confidence.
type extractionView struct {
	ID                   string               `json:"id"`
	DocumentID           string               `json:"documentId"`
	Type                 string               `json:"type"`
	TemplateID           *string              `json:"templateId"`
	Source               string               `json:"source"`
	Status               string               `json:"status"`
	ConfidenceScore      float64              `json:"confidenceScore"`
	Fields               map[string]string    `json:"fields"`
	FieldDetails         map[string]fieldView `json:"fieldDetails"`
	Flags                []string             `json:"flags"`
	PreviousExtractionID *string              `json:"previousExtractionId"`
	ActorUserID          *string              `json:"actorUserId"`
	CreatedAt            string               `json:"createdAt"`
}

// fieldView is one field of an extraction.
type fieldView struct {
	Value      *string `json:"value"`
	Confidence float64 `json:"confidence"`
	Required   bool    `json:"required"`
	Valid      *bool   `json:"valid"`
	Problem    *string `json:"problem"`
	Corrected  bool    `json:"corrected"`
}

func newDocumentView(d *store.Document) documentView {
	return documentView{
		ID: d.ID, Status: d.Status, Type: api.Nullable(d.Type), Filename: d.Filename, Format: d.Format, Size: d.Size, SHA256: d.SHA256,
		ExternalRef: api.Nullable(d.ExternalRef), ExternalID: api.Nullable(d.ExternalID), ClassificationConfidence: d.ClassificationConfidence,
		TemplateID: api.Nullable(d.TemplateID), ConfidenceScore: d.ConfidenceScore, Flags: api.NonNil(d.Flags), FailedStage: api.Nullable(d.FailedStage),
		ErrorMessage: api.Nullable(d.ErrorMessage), LatestExtractionID: api.Nullable(d.LatestExtractionID), UploadedBy: api.Nullable(d.UploadedBy),
		CreatedAt: api.Timestamp(d.CreatedAt), UpdatedAt: api.Timestamp(d.UpdatedAt), CompletedAt: api.TimestampPtr(d.CompletedAt),
	}
}

func newExtractionView(x *store.Extraction) extractionView {
	v := extractionView{
		ID: x.ID, DocumentID: x.DocumentID, Type: x.Type, TemplateID: api.Nullable(x.TemplateID), Source: x.Source, Status: x.Status,
		ConfidenceScore: x.ConfidenceScore, Fields: map[string]string{}, FieldDetails: map[string]fieldView{}, Flags: api.NonNil(x.Flags),
		PreviousExtractionID: api.Nullable(x.PreviousExtractionID), ActorUserID: api.Nullable(x.ActorUserID), CreatedAt: api.Timestamp(x.CreatedAt),
	}
	for name, f := range x.Fields {
		fv := fieldView{Confidence: f.Confidence, Required: f.Required, Valid: f.Valid, Problem: api.Nullable(f.Problem), Corrected: f.Corrected}
		if f.Found {
			v.Fields[name] = f.Value
			fv.Value = &f.Value
		}
		v.FieldDetails[name] = fv
	}
	return v
}

// listDocuments pages through the organisation's documents, newest first. Filters: status,
// type, from/to (uploaded), externalId, q (id, file name, externalRef); summary=true adds the
// count of each status over every filter but status.
func (h *Handler) listDocuments(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Statuses: documentStatuses(), Extra: []string{"type"},
		Filters: []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterExternalID, api.FilterSummary}})
	if !ok {
		return
	}
	docType := strings.TrimSpace(c.Query("type"))
	if len(docType) > 64 {
		api.ValidationFailed(c, api.FieldErrors{"type": {"must be at most 64 characters"}})
		return
	}
	org := api.PrincipalOf(c).OrgID
	dq := store.DocumentQuery{Filter: q.Filter, Type: docType}
	rows, total, err := h.Store.Documents.List(c.Request.Context(), org, q.Page, dq)
	if err != nil {
		api.Internal(c, err)
		return
	}
	var summary map[string]int64
	if q.Filter.Summary {
		if summary, err = h.Store.Documents.Count(c.Request.Context(), org, dq); err != nil {
			api.Internal(c, err)
			return
		}
		summary = api.SummaryOf(summary, documentStatuses())
	}
	api.ListRows(c, rows, total, q, newDocumentView, summary)
}

// loadDocument loads the path's document of the caller's organisation, answering 404 when
// there is none.
func (h *Handler) loadDocument(c *gin.Context) (*store.Document, bool) {
	d, err := h.Store.Documents.Get(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	return d, api.Loaded(c, err)
}

// documentDetail is a document with its latest extraction, or false after answering 500.
func (h *Handler) documentDetail(c *gin.Context, d *store.Document) (documentDetailView, bool) {
	v := documentDetailView{documentView: newDocumentView(d)}
	if d.LatestExtractionID != "" {
		x, err := h.Store.Documents.GetExtraction(c.Request.Context(), d.OrgID, d.LatestExtractionID)
		if err != nil {
			api.Internal(c, err)
			return v, false
		}
		xv := newExtractionView(x)
		v.LatestExtraction = &xv
	}
	return v, true
}

// getDocument answers one document: status, type, confidence, flags, the stage a failure
// happened in, and the latest extraction.
func (h *Handler) getDocument(c *gin.Context) {
	d, ok := h.loadDocument(c)
	if !ok {
		return
	}
	if v, ok := h.documentDetail(c, d); ok {
		api.OK(c, v)
	}
}

// listExtractions pages through a document's extractions, newest first: the pipeline's and
// every correction.
func (h *Handler) listExtractions(c *gin.Context) {
	d, ok := h.loadDocument(c)
	if !ok {
		return
	}
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100})
	if !ok {
		return
	}
	rows, total, err := h.Store.Documents.ListExtractions(c.Request.Context(), d.OrgID, d.ID, q.Page)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.ListRows(c, rows, total, q, newExtractionView, nil)
}

// MaxDocumentPassword is the longest password accepted for an encrypted PDF, in bytes.
const MaxDocumentPassword = 1024

// passwordRequest is the body of POST /api/documents/:id/password.
type passwordRequest struct {
	Password *string `json:"password"`
}

// submitPassword gives a document waiting in password_required a password. The password is
// stored sealed (secrets.key, bound to the document) in the same write that moves the
// document to processing, so of two concurrent calls one goes through and the other gets the
// SPEC 3.5 conflict; then the pipeline tries it (the document-password Update) and the answer
// is 202 with the document: password_required again when the password was wrong, processing
// when it opened the file. Any other state is 409.
func (h *Handler) submitPassword(c *gin.Context) {
	var req passwordRequest
	if !api.BindJSON(c, &req) {
		return
	}
	switch {
	case req.Password == nil || *req.Password == "":
		api.ValidationFailed(c, api.FieldErrors{"password": {"is required"}})
		return
	case len(*req.Password) > MaxDocumentPassword:
		api.ValidationFailed(c, api.FieldErrors{"password": {"must be at most 1024 bytes"}})
		return
	}
	d, ok := h.loadDocument(c)
	if !ok {
		return
	}
	if d.Status != string(docintel.StatusPasswordRequired) {
		api.StateConflict(c, d.Status, string(docintel.StatusProcessing))
		return
	}
	err := h.passwords.Submit(c.Request.Context(), d, api.PrincipalOf(c).UserID, *req.Password)
	var se *store.StateError
	status, msg, refused := workflows.UpdateErrorStatus(err)
	switch {
	case errors.As(err, &se):
		api.StateConflict(c, se.Status, string(docintel.StatusProcessing))
		return
	case refused:
		api.Fail(c, status, msg)
		return
	case errors.Is(err, ErrNoSecretsBox), errors.Is(err, ErrNoTemporal), errors.Is(err, ErrPasswordUndelivered):
		api.Logger(c).Error("document password", "documentId", d.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	case !api.Loaded(c, err):
		return
	}
	if d, ok = h.loadDocument(c); !ok {
		return
	}
	if v, ok := h.documentDetail(c, d); ok {
		api.Accepted(c, v)
	}
}

// MaxCorrectedValue is the longest value a correction may set, in bytes.
const MaxCorrectedValue = 1000

// correctionRequest is the body of POST /api/documents/:id/corrections.
type correctionRequest struct {
	Fields map[string]*string `json:"fields"`
	// ExternalID makes the correction idempotent (middleware).
	ExternalID string `json:"externalId"`
}

// correctDocument records an analyst's correction of the document's latest extraction: a new
// extraction (ext_) with previousExtractionId, status extracted, and extraction.corrected with
// actorUserId, through a DocumentCorrection workflow. It needs a user (a key bound to one, or a
// session: 422 api_key_not_bound_to_user otherwise), a document that has an extraction (409
// otherwise) and fields of that extraction (400 otherwise). 201 with the new extraction.
func (h *Handler) correctDocument(c *gin.Context) {
	var req correctionRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if len(req.Fields) == 0 {
		fe.Add("fields", "must name at least one field")
	}
	for name, v := range req.Fields {
		switch {
		case v == nil:
			fe.Add("fields."+name, "must be a string")
		case len(*v) > MaxCorrectedValue:
			fe.Add("fields."+name, "must be at most 1000 characters")
		}
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	d, ok := h.loadDocument(c)
	if !ok {
		return
	}
	p, ok := api.RequireUser(c)
	if !ok {
		return
	}
	if !docintel.Status(d.Status).Correctable() || d.LatestExtractionID == "" {
		api.StateConflict(c, d.Status, string(docintel.StatusExtracted))
		return
	}
	prev, err := h.Store.Documents.GetExtraction(c.Request.Context(), d.OrgID, d.LatestExtractionID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	fields := make(map[string]string, len(req.Fields))
	for name, v := range req.Fields {
		if _, known := prev.Fields[name]; !known {
			fe.Add("fields."+name, "is not a field of this "+prev.Type+" document; one of "+strings.Join(slices.Sorted(maps.Keys(prev.Fields)), ", "))
		}
		fields[name] = *v
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	in := docwf.CorrectionInput{OrgID: d.OrgID, DocumentID: d.ID, ExtractionID: ids.New(ids.Extraction), PreviousExtractionID: prev.ID,
		ActorUserID: p.UserID, Fields: fields, CorrectedAt: h.Now().UTC()}
	ctx, cancel := api.TemporalContext(c)
	defer cancel()
	run, err := h.Temporal.ExecuteWorkflow(ctx, docwf.CorrectionStartOptions(in), docwf.DocumentCorrectionName, in)
	if err == nil {
		err = run.Get(ctx, nil)
	}
	if status, msg, ok := docwf.CorrectionErrorStatus(err); ok {
		api.Fail(c, status, msg)
		return
	} else if err != nil {
		api.Logger(c).Error("document correction", "documentId", d.ID, "extractionId", in.ExtractionID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	x, err := h.Store.Documents.GetExtraction(c.Request.Context(), d.OrgID, in.ExtractionID)
	if !api.Loaded(c, err) {
		return
	}
	api.Created(c, newExtractionView(x))
}
