package automation

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/automation"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	autowf "github.com/svcplatform/svc/workflows/automation"
)

// msgNoCases answers a case automation in a deployment without the cases product.
const msgNoCases = "case automations need the cases product, which is not available in this deployment"

// runView is an automation run. result is machine-written: a case summary, a SAR draft or
// the document fields the model read (the document is then in requires_review).
type runView struct {
	ID             string           `json:"id"`
	Kind           string           `json:"kind"`
	SubjectID      string           `json:"subjectId"`
	Status         string           `json:"status"`
	Result         any              `json:"result"`
	MachineWritten bool             `json:"machineWritten"`
	Model          *string          `json:"model"`
	Usage          automation.Usage `json:"usage"`
	ErrorMessage   *string          `json:"errorMessage"`
	ExternalID     *string          `json:"externalId"`
	RequestedBy    *string          `json:"requestedBy"`
	CreatedAt      string           `json:"createdAt"`
	UpdatedAt      string           `json:"updatedAt"`
	CompletedAt    *string          `json:"completedAt"`
}

func newRunView(r *store.AutomationRun) runView {
	return runView{
		ID: r.ID, Kind: r.Kind, SubjectID: r.SubjectID, Status: r.Status, Result: r.Result, MachineWritten: true,
		Model: api.Nullable(r.Model), Usage: r.Usage, ErrorMessage: api.Nullable(r.Error), ExternalID: api.Nullable(r.ExternalID),
		RequestedBy: api.Nullable(r.CreatedBy), CreatedAt: api.Timestamp(r.CreatedAt), UpdatedAt: api.Timestamp(r.UpdatedAt),
		CompletedAt: api.TimestampPtr(r.CompletedAt),
	}
}

// runDetailView is a run with the audit records of its model exchanges.
type runDetailView struct {
	runView
	Exchanges []exchangeView `json:"exchanges"`
}

// createRunRequest is the body of POST /api/automations.
type createRunRequest struct {
	Kind       string `json:"kind"`
	SubjectID  string `json:"subjectId"`
	ExternalID string `json:"externalId"`
}

func (r *createRunRequest) validate() api.FieldErrors {
	fe := api.FieldErrors{}
	if !automation.IsKind(r.Kind) {
		fe.Add("kind", "must be one of "+strings.Join(automation.Kinds(), ", "))
	}
	r.SubjectID = strings.TrimSpace(r.SubjectID)
	switch {
	case r.SubjectID == "":
		fe.Add("subjectId", "is required: the case (case_summary, sar_draft) or document (document_fields)")
	case len(r.SubjectID) > 40 || !utf8.ValidString(r.SubjectID):
		fe.Add("subjectId", "must be at most 40 characters")
	}
	if len(r.ExternalID) > 200 {
		fe.Add("externalId", "must be at most 200 characters")
	}
	return fe
}

// createRun answers POST /api/automations: it checks the subject (the case exists; the
// document is of a custom type whose template rules found none of its fields), stores the
// run and starts its workflow: 202. A SAR draft needs a key bound to a user, who becomes
// the draft's drafter under the four-eyes rule of SAR submission.
func (h *Handler) createRun(c *gin.Context) {
	var req createRunRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if fe := req.validate(); fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	p := api.PrincipalOf(c)
	if req.Kind == automation.KindSARDraft {
		if _, ok := api.RequireUser(c); !ok {
			return
		}
	}
	if !h.subjectReady(c, p.OrgID, req) || !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	r := &store.AutomationRun{ID: api.NewID(c, ids.Automation), OrgID: p.OrgID, Kind: req.Kind, SubjectID: req.SubjectID,
		ExternalID: req.ExternalID, CreatedBy: p.UserID}
	ctx := c.Request.Context()
	if err := h.Store.Automation.CreateRun(ctx, r); err != nil {
		api.Internal(c, err)
		return
	}
	in := autowf.RunInput{RunID: r.ID, OrgID: r.OrgID, Kind: r.Kind, SubjectID: r.SubjectID, ExternalID: r.ExternalID, RequestedBy: r.CreatedBy}
	tctx, cancel := api.TemporalContext(c)
	defer cancel()
	if _, err := h.Temporal.ExecuteWorkflow(tctx, autowf.RunStartOptions(in), autowf.RunWorkflowName, in); err != nil {
		if derr := h.Store.Automation.DeleteUnstarted(tctx, r.OrgID, r.ID); derr != nil {
			err = errors.Join(err, derr)
		}
		api.Logger(c).Error("start automation", "automationId", r.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	stored, err := h.Store.Automation.GetRun(ctx, r.OrgID, r.ID)
	if !api.Loaded(c, err) {
		return
	}
	api.Accepted(c, newRunView(stored))
}

// subjectReady checks the run's subject in the caller's organisation, answering when it
// is not usable: 404 for an unknown or foreign id, 503 without the cases product, 409 for a
// document the pipeline has not finished, 400 for a document the automation cannot read.
func (h *Handler) subjectReady(c *gin.Context, orgID string, req createRunRequest) bool {
	ctx := c.Request.Context()
	if req.Kind != automation.KindDocumentFields {
		if h.Cases == nil {
			api.Fail(c, http.StatusServiceUnavailable, msgNoCases)
			return false
		}
		_, err := h.Cases.CaseContext(ctx, orgID, req.SubjectID)
		if errors.Is(err, automation.ErrCaseNotFound) {
			api.NotFound(c)
			return false
		}
		if err != nil {
			api.Internal(c, err)
			return false
		}
		return true
	}
	doc, err := h.Store.Documents.Get(ctx, orgID, req.SubjectID)
	if !api.Loaded(c, err) {
		return false
	}
	templates, err := h.Store.Documents.Templates(ctx, orgID)
	if err != nil {
		api.Internal(c, err)
		return false
	}
	if docintel.TemplateFor(doc.Type, templates) == nil {
		api.ValidationFailed(c, api.FieldErrors{"subjectId": {"document is of type " + api.Quote(doc.Type) + ", not a custom document type of the organisation"}})
		return false
	}
	if !docintel.Status(doc.Status).Correctable() {
		api.StateConflict(c, doc.Status, string(docintel.StatusRequiresReview))
		return false
	}
	x, err := h.Store.Documents.GetExtraction(ctx, orgID, doc.LatestExtractionID)
	if !api.Loaded(c, err) {
		return false
	}
	if slices.ContainsFunc(mapValues(x.Fields), func(f store.ExtractedField) bool { return f.Found }) {
		api.ValidationFailed(c, api.FieldErrors{"subjectId": {"the template rules found fields of this document: correct its extraction instead"}})
		return false
	}
	return true
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// listRuns answers GET /api/automations (offset; filters status, from, to, externalId, kind,
// subjectId).
func (h *Handler) listRuns(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{
		Filters:  []string{api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterExternalID},
		Statuses: []string{"pending", autowf.StatusRunning, autowf.StatusCompleted, autowf.StatusFailed},
		Extra:    []string{"kind", "subjectId"},
	})
	if !ok {
		return
	}
	rq := store.RunQuery{Filter: q.Filter, Kind: c.Query("kind"), SubjectID: c.Query("subjectId")}
	if rq.Kind != "" && !automation.IsKind(rq.Kind) {
		api.ValidationFailed(c, api.FieldErrors{"kind": {"must be one of " + strings.Join(automation.Kinds(), ", ")}})
		return
	}
	rows, total, err := h.Store.Automation.ListRuns(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, rq)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.ListRows(c, rows, total, q, newRunView, nil)
}

// getRun answers GET /api/automations/:id.
func (h *Handler) getRun(c *gin.Context) {
	orgID := api.PrincipalOf(c).OrgID
	r, err := h.Store.Automation.GetRun(c.Request.Context(), orgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	xs, err := h.Store.Automation.Exchanges(c.Request.Context(), orgID, r.ID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, runDetailView{runView: newRunView(r), Exchanges: exchangeViews(xs)})
}
