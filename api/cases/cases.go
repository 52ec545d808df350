package cases

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	caseacts "github.com/svcplatform/svc/activities/cases"
	"github.com/svcplatform/svc/api"
	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	casewf "github.com/svcplatform/svc/workflows/cases"
)

// Size limits of a case's text fields (their columns' sizes, or a sane bound for text).
const (
	maxTitle     = 300
	maxText      = 4000
	maxAlertIDs  = 100
	maxEvidence  = 50
	maxEvidNote  = 500
	maxReference = 100
)

// MsgAlertTaken is the refusal of a case opened with an alert another case holds (409).
const MsgAlertTaken = "alert already in a case"

// caseView is a case as the API shows it.
type caseView struct {
	ID                string  `json:"id"`
	Title             string  `json:"title"`
	CustomerID        *string `json:"customerId"`
	Priority          string  `json:"priority"`
	Status            string  `json:"status"`
	AssigneeID        *string `json:"assigneeId"`
	DueAt             *string `json:"dueAt"`
	ProposedBy        *string `json:"proposedBy"`
	ProposedOutcome   *string `json:"proposedOutcome"`
	ProposedRationale *string `json:"proposedRationale"`
	Outcome           *string `json:"outcome"`
	Rationale         *string `json:"rationale"`
	ClosedBy          *string `json:"closedBy"`
	ClosedAt          *string `json:"closedAt"`
	CreatedBy         *string `json:"createdBy"`
	Summary           *string `json:"summary"`
	SummaryBy         *string `json:"summaryBy"`
	CreatedAt         string  `json:"createdAt"`
	UpdatedAt         string  `json:"updatedAt"`
}

func newCaseView(c *store.Case) caseView {
	return caseView{ID: c.ID, Title: c.Title, CustomerID: api.Nullable(c.CustomerID), Priority: c.Priority, Status: c.Status,
		AssigneeID: api.Nullable(c.AssigneeID), DueAt: api.TimestampPtr(c.DueAt), ProposedBy: api.Nullable(c.ProposedBy),
		ProposedOutcome: api.Nullable(c.ProposedOutcome), ProposedRationale: api.Nullable(c.ProposedRationale),
		Outcome: api.Nullable(c.Outcome), Rationale: api.Nullable(c.Rationale), ClosedBy: api.Nullable(c.ClosedBy),
		ClosedAt: api.TimestampPtr(c.ClosedAt), CreatedBy: api.Nullable(c.CreatedBy), Summary: api.Nullable(c.Summary),
		SummaryBy: api.Nullable(c.SummaryBy), CreatedAt: api.Timestamp(c.CreatedAt), UpdatedAt: api.Timestamp(c.UpdatedAt)}
}

// caseDetailView is a case with its alerts, evidence and timeline.
type caseDetailView struct {
	caseView
	Alerts   []alertView    `json:"alerts"`
	Evidence []evidenceView `json:"evidence"`
	Timeline []entryView    `json:"timeline"`
}

type evidenceView struct {
	Kind      string  `json:"kind"`
	ID        string  `json:"id"`
	Note      *string `json:"note"`
	AddedBy   *string `json:"addedBy"`
	CreatedAt string  `json:"createdAt"`
}

type entryView struct {
	ID        string         `json:"id"`
	Kind      string         `json:"kind"`
	ActorID   *string        `json:"actorId"`
	APIKeyID  *string        `json:"apiKeyId"`
	Body      *string        `json:"body"`
	Data      map[string]any `json:"data"`
	CreatedAt string         `json:"createdAt"`
}

func newEntryView(e *store.CaseEntry) entryView {
	v := entryView{ID: e.ID, Kind: e.Kind, ActorID: api.Nullable(e.ActorID), APIKeyID: api.Nullable(e.APIKeyID), Body: api.Nullable(e.Body),
		Data: e.Data, CreatedAt: api.Timestamp(e.CreatedAt)}
	if v.Data == nil {
		v.Data = map[string]any{}
	}
	return v
}

func newDetailView(d *store.CaseDetail) caseDetailView {
	return caseDetailView{caseView: newCaseView(&d.Case), Alerts: api.Views(d.Alerts, newAlertView),
		Evidence: api.Views(d.Evidence, func(e *store.CaseEvidence) evidenceView {
			return evidenceView{Kind: e.Kind, ID: e.RefID, Note: api.Nullable(e.Note), AddedBy: api.Nullable(e.AddedBy), CreatedAt: api.Timestamp(e.CreatedAt)}
		}),
		Timeline: api.Views(d.Timeline, newEntryView)}
}

// createCaseRequest is the body of POST /api/cases.
type createCaseRequest struct {
	Title      string   `json:"title"`
	CustomerID string   `json:"customerId"`
	Priority   string   `json:"priority"`
	AlertIDs   []string `json:"alertIds"`
	DueAt      string   `json:"dueAt"`
	ExternalID string   `json:"externalId"`
}

// parseDue reads an RFC 3339 due date into fe.
func parseDue(fe api.FieldErrors, v string) *time.Time {
	if v == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		fe.Add("dueAt", "must be an RFC 3339 time")
		return nil
	}
	t = t.UTC()
	return &t
}

// createCase opens a case by hand with the alerts named (each the organisation's and in no
// case yet), then starts its workflow; should that start fail, the gathering Schedule starts it.
func (h *Handler) createCase(c *gin.Context) {
	var req createCaseRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	req.Title = strings.TrimSpace(req.Title)
	if req.Title == "" || len(req.Title) > maxTitle {
		fe.Add("title", "is required, at most 300 characters")
	}
	if req.Priority == "" {
		req.Priority = domain.DefaultPriority
	} else if !domain.ValidPriority(req.Priority) {
		fe.Add("priority", "must be one of "+strings.Join(domain.Priorities(), ", "))
	}
	if len(req.AlertIDs) > maxAlertIDs {
		fe.Add("alertIds", "at most 100 alerts")
	}
	for _, id := range req.AlertIDs {
		if !strings.HasPrefix(id, string(ids.Alert)+"_") {
			fe.Add("alertIds", "must be alert ids (alr_…)")
			break
		}
	}
	due := parseDue(fe, req.DueAt)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	p := api.PrincipalOf(c)
	ctx := c.Request.Context()
	if req.CustomerID != "" {
		if _, err := h.Store.Customers.Get(ctx, p.OrgID, req.CustomerID); !api.Loaded(c, err) {
			return
		}
	}
	if due == nil {
		t := time.Now().UTC().Add(h.Config.Cases.DueIn)
		due = &t
	}
	row, err := h.Store.Cases.CreateCase(ctx, store.NewCase{ID: api.NewID(c, ids.Case), OrgID: p.OrgID, Title: req.Title, CustomerID: req.CustomerID,
		Priority: req.Priority, CreatedBy: p.UserID, DueAt: *due, AlertIDs: req.AlertIDs})
	if errors.Is(err, store.ErrAlertTaken) {
		api.Fail(c, http.StatusConflict, MsgAlertTaken)
		return
	}
	if !api.Loaded(c, err) {
		return
	}
	if h.Temporal != nil {
		in := caseacts.CaseInputOf(row, req.AlertIDs)
		if _, err := h.Temporal.ExecuteWorkflow(ctx, casewf.CaseStartOptions(in), casewf.CaseName, in); err == nil {
			// Unmarked, the gathering Schedule starts it again: harmless (workflow id = case id).
			if err := h.Store.Cases.MarkCaseStarted(ctx, p.OrgID, row.ID); err != nil {
				api.Logger(c).Warn("case started but not marked; the gathering Schedule marks it", "caseId", row.ID, "error", err)
			}
		} else {
			api.Logger(c).Warn("case workflow not started; the gathering Schedule starts it", "caseId", row.ID, "error", err)
		}
	}
	h.answerCase(c, http.StatusCreated, row.ID)
}

// answerCase answers the case with its alerts, evidence and timeline.
func (h *Handler) answerCase(c *gin.Context, status int, id string) {
	d, err := h.Store.Cases.CaseDossier(c.Request.Context(), api.PrincipalOf(c).OrgID, id)
	if api.Loaded(c, err) {
		c.JSON(status, gin.H{"data": newDetailView(d)})
	}
}

// listCases pages through the organisation's cases. Filters: status, q (title), from/to,
// customerId, assigneeId.
func (h *Handler) listCases(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Statuses: domain.Lifecycle.Names(), Extra: []string{"assigneeId"},
		Filters: []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterCustomerID}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Cases.ListCases(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page,
		store.CaseQuery{Filter: q.Filter, AssigneeID: strings.TrimSpace(c.Query("assigneeId"))})
	if api.Loaded(c, err) {
		api.ListRows(c, rows, total, q, newCaseView, nil)
	}
}

// getCase answers one case with its alerts, evidence and timeline.
func (h *Handler) getCase(c *gin.Context) { h.answerCase(c, http.StatusOK, api.PathID(c)) }

// loadCase loads the path's case of the caller's organisation (404 otherwise).
func (h *Handler) loadCase(c *gin.Context) (*store.Case, bool) {
	row, err := h.Store.Cases.GetCase(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	return row, api.Loaded(c, err)
}

// commentRequest is the body of POST /api/cases/:id/comments.
type commentRequest struct {
	Body string `json:"body"`
}

// addComment adds the caller's comment to a case's timeline.
func (h *Handler) addComment(c *gin.Context) {
	var req commentRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if req.Body = strings.TrimSpace(req.Body); req.Body == "" || len(req.Body) > maxText {
		api.ValidationFailed(c, api.FieldErrors{"body": {"is required, at most 4000 characters"}})
		return
	}
	p := api.PrincipalOf(c)
	e, err := h.Store.Cases.AddComment(c.Request.Context(), p.OrgID, api.PathID(c), p.UserID, p.APIKeyID, req.Body)
	if api.Loaded(c, err) {
		api.AuditResource(c, api.PathID(c))
		api.Created(c, newEntryView(e))
	}
}

// evidenceLink is one record to link to a case.
type evidenceLink struct {
	ID   string `json:"id"`
	Note string `json:"note"`
}

// patchCaseRequest is the body of PATCH /api/cases/:id.
type patchCaseRequest struct {
	Title    *string        `json:"title"`
	Priority *string        `json:"priority"`
	DueAt    *string        `json:"dueAt"`
	Evidence []evidenceLink `json:"evidence"`
}

// patchCase changes a case's title, priority or due date (through its workflow, which resets
// the due-date timer) and links evidence (screenings, decisions, documents, executions,
// analyses, identity attempts, by their ids).
func (h *Handler) patchCase(c *gin.Context) {
	var req patchCaseRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	act := casewf.ActRequest{Action: domain.ActionUpdate}
	if req.Title != nil {
		if act.Title = strings.TrimSpace(*req.Title); act.Title == "" || len(act.Title) > maxTitle {
			fe.Add("title", "must be 1 to 300 characters")
		}
	}
	if req.Priority != nil {
		if act.Priority = *req.Priority; !domain.ValidPriority(act.Priority) {
			fe.Add("priority", "must be one of "+strings.Join(domain.Priorities(), ", "))
		}
	}
	if req.DueAt != nil {
		if act.DueAt = parseDue(fe, *req.DueAt); act.DueAt == nil && !fe.Any() {
			fe.Add("dueAt", "must be an RFC 3339 time")
		}
	}
	if len(req.Evidence) > maxEvidence {
		fe.Add("evidence", "at most 50 links")
	}
	var links []store.CaseEvidence
	for _, l := range req.Evidence {
		prefix, _, _ := strings.Cut(l.ID, "_")
		kind, ok := domain.EvidenceKinds[prefix]
		if !ok || len(l.ID) > maxReference || len(l.Note) > maxEvidNote {
			fe.Add("evidence", "each link is the id of a screening, decision, document, execution, analysis or identity attempt, with a note of at most 500 characters")
			break
		}
		links = append(links, store.CaseEvidence{Kind: kind, RefID: l.ID, Note: l.Note})
	}
	if req.Title == nil && req.Priority == nil && req.DueAt == nil && len(req.Evidence) == 0 {
		fe.Add("body", "nothing to change")
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	row, ok := h.loadCase(c)
	if !ok {
		return
	}
	p := api.PrincipalOf(c)
	if act.Title != "" || act.Priority != "" || act.DueAt != nil {
		if _, ok := h.update(c, row, act); !ok {
			return
		}
	}
	if len(links) > 0 {
		if err := h.Store.Cases.AddEvidence(c.Request.Context(), p.OrgID, row.ID, p.UserID, links); !api.Loaded(c, err) {
			return
		}
	}
	h.answerCase(c, http.StatusOK, row.ID)
}

// actRequest is the body of the case's action endpoints; each reads the fields it needs.
type actRequest struct {
	AssigneeID string `json:"assigneeId"`
	Outcome    string `json:"outcome"`
	Rationale  string `json:"rationale"`
	Reason     string `json:"reason"`
	Comment    string `json:"comment"`
}

// act answers an action on a case (assign, escalate, propose/approve/reject closure, reopen):
// the case's workflow applies it through its act Update, whose validator holds the lifecycle
// and the four-eyes rules, so a refused action leaves no trace. Closure actions need an
// effective user (422 api_key_not_bound_to_user); the audit log records user and key.
func (h *Handler) act(action domain.Action) gin.HandlerFunc {
	return func(c *gin.Context) {
		var req actRequest
		if !api.BindJSON(c, &req) {
			return
		}
		fe := api.FieldErrors{}
		switch action {
		case domain.ActionAssign:
			if req.AssigneeID == "" {
				fe.Add("assigneeId", "is required")
			}
		case domain.ActionProposeClose:
			if !domain.ValidOutcome(req.Outcome) {
				fe.Add("outcome", "must be one of "+strings.Join(domain.Outcomes(), ", "))
			}
			if req.Rationale = strings.TrimSpace(req.Rationale); req.Rationale == "" || len(req.Rationale) > maxText {
				fe.Add("rationale", "is required, at most 4000 characters")
			}
		}
		if len(req.Reason) > maxText || len(req.Comment) > maxText {
			fe.Add("reason", "at most 4000 characters")
		}
		if fe.Any() {
			api.ValidationFailed(c, fe)
			return
		}
		row, ok := h.loadCase(c)
		if !ok {
			return
		}
		p := api.PrincipalOf(c)
		switch action {
		case domain.ActionProposeClose, domain.ActionApproveClose, domain.ActionRejectClose:
			if _, ok := api.RequireUser(c); !ok {
				return
			}
		case domain.ActionAssign:
			if _, err := h.Store.Users.Get(c.Request.Context(), p.OrgID, req.AssigneeID); errors.Is(err, store.ErrNotFound) {
				api.ValidationFailed(c, api.FieldErrors{"assigneeId": {"is not a user of the organisation"}})
				return
			} else if !api.Loaded(c, err) {
				return
			}
		}
		reason := req.Reason
		if reason == "" {
			reason = req.Comment
		}
		if _, ok := h.update(c, row, casewf.ActRequest{Action: action, AssigneeID: req.AssigneeID, Outcome: req.Outcome,
			Rationale: req.Rationale, Reason: reason}); !ok {
			return
		}
		h.answerCase(c, http.StatusOK, row.ID)
	}
}
