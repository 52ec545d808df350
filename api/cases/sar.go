package cases

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	caseacts "github.com/svcplatform/svc/activities/cases"
	"github.com/svcplatform/svc/api"
	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
)

// Limits of a filing's fields.
const (
	maxNarrative = 20000
	maxSubjects  = 20
)

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// MsgIncomplete answers the submission of a draft that lacks a field (a machine draft whose
// amount no person has filled in): 422 with the missing fields.
const MsgIncomplete = "sar filing incomplete"

// sarView is a SAR filing as the API shows it.
type sarView struct {
	ID            string   `json:"id"`
	CaseID        string   `json:"caseId"`
	Subjects      []string `json:"subjects"`
	ActivityFrom  string   `json:"activityFrom"`
	ActivityTo    string   `json:"activityTo"`
	Amount        float64  `json:"amount"`
	Currency      string   `json:"currency"`
	Narrative     string   `json:"narrative"`
	Status        string   `json:"status"`
	FiledByID     string   `json:"filedById"`
	SubmittedByID *string  `json:"submittedById"`
	SubmittedAt   *string  `json:"submittedAt"`
	Reference     *string  `json:"reference"`
	RejectReason  *string  `json:"rejectReason"`
	LastError     *string  `json:"lastError"`
	Attempts      int      `json:"attempts"`
	AnsweredAt    *string  `json:"answeredAt"`
	PDFBytes      int      `json:"pdfBytes"`
	CreatedAt     string   `json:"createdAt"`
	UpdatedAt     string   `json:"updatedAt"`
}

func newSARView(f *store.SARFiling) sarView {
	return sarView{ID: f.ID, CaseID: f.CaseID, Subjects: api.NonNil(f.Subjects), ActivityFrom: f.ActivityFrom, ActivityTo: f.ActivityTo,
		Amount: f.Amount, Currency: f.Currency, Narrative: f.Narrative, Status: f.Status, FiledByID: f.FiledByID,
		SubmittedByID: api.Nullable(f.SubmittedByID), SubmittedAt: api.TimestampPtr(f.SubmittedAt), Reference: api.Nullable(f.Reference),
		RejectReason: api.Nullable(f.RejectReason), LastError: api.Nullable(f.LastError), Attempts: f.Attempts,
		AnsweredAt: api.TimestampPtr(f.AnsweredAt), PDFBytes: len(f.PDF), CreatedAt: api.Timestamp(f.CreatedAt), UpdatedAt: api.Timestamp(f.UpdatedAt)}
}

// sarFields are a filing's fields as a draft or a change gives them.
type sarFields struct {
	Subjects     *[]string `json:"subjects"`
	ActivityFrom *string   `json:"activityFrom"`
	ActivityTo   *string   `json:"activityTo"`
	Amount       *float64  `json:"amount"`
	Currency     *string   `json:"currency"`
	Narrative    *string   `json:"narrative"`
}

// check validates the fields given into fe; required names the fields a draft must have.
func (f *sarFields) check(fe api.FieldErrors, required bool) {
	if f.Subjects != nil {
		if len(*f.Subjects) > maxSubjects {
			fe.Add("subjects", "at most 20 customers")
		}
		for _, s := range *f.Subjects {
			if !strings.HasPrefix(s, string(ids.Customer)+"_") || len(s) > 128 {
				fe.Add("subjects", "must be customer ids (cus_…)")
				break
			}
		}
	}
	var from, to time.Time
	for name, v := range map[string]*string{"activityFrom": f.ActivityFrom, "activityTo": f.ActivityTo} {
		switch {
		case v == nil && required:
			fe.Add(name, "is required (YYYY-MM-DD)")
		case v != nil:
			t, err := time.Parse(time.DateOnly, *v)
			if err != nil {
				fe.Add(name, "must be a date YYYY-MM-DD")
			} else if name == "activityFrom" {
				from = t
			} else {
				to = t
			}
		}
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		fe.Add("activityTo", "must not be before activityFrom")
	}
	if f.Amount == nil && required {
		fe.Add("amount", "is required")
	} else if f.Amount != nil && (*f.Amount <= 0 || *f.Amount > 1e15) {
		fe.Add("amount", "must be positive")
	}
	if f.Currency != nil && !currencyCode.MatchString(*f.Currency) {
		fe.Add("currency", "must be an ISO 4217 code such as EUR")
	}
	if f.Narrative == nil && required {
		fe.Add("narrative", "is required")
	} else if f.Narrative != nil && (strings.TrimSpace(*f.Narrative) == "" || len(*f.Narrative) > maxNarrative) {
		fe.Add("narrative", "must be 1 to 20000 characters")
	}
}

// createSARRequest is the body of POST /api/sar-filings.
type createSARRequest struct {
	CaseID string `json:"caseId"`
	sarFields
	ExternalID string `json:"externalId"`
}

// createSAR drafts a filing from a case of the organisation; the effective user is its
// drafter (filedById), so the key must be bound to a user.
func (h *Handler) createSAR(c *gin.Context) {
	var req createSARRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if !strings.HasPrefix(req.CaseID, string(ids.Case)+"_") {
		fe.Add("caseId", "is required (cas_…)")
	}
	req.check(fe, true)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	p, ok := api.RequireUser(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	cs, err := h.Store.Cases.GetCase(ctx, p.OrgID, req.CaseID)
	if !api.Loaded(c, err) {
		return
	}
	f := &store.SARFiling{ID: api.NewID(c, ids.SARFiling), OrgID: p.OrgID, CaseID: cs.ID, ActivityFrom: *req.ActivityFrom,
		ActivityTo: *req.ActivityTo, Amount: *req.Amount, Currency: "EUR", Narrative: *req.Narrative, FiledByID: p.UserID, FiledByKeyID: p.APIKeyID}
	if req.Currency != nil {
		f.Currency = *req.Currency
	}
	switch {
	case req.Subjects != nil:
		f.Subjects = *req.Subjects
	case cs.CustomerID != "":
		f.Subjects = []string{cs.CustomerID}
	}
	if err := h.Store.Cases.CreateSAR(ctx, f); !api.Loaded(c, err) {
		return
	}
	api.Created(c, newSARView(f))
}

// listSARs pages through the organisation's filings. Filters: status, q (narrative),
// from/to, caseId.
func (h *Handler) listSARs(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Statuses: domain.SARFilings.Names(), Extra: []string{"caseId"},
		Filters: []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Cases.ListSARs(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter, strings.TrimSpace(c.Query("caseId")))
	if api.Loaded(c, err) {
		api.ListRows(c, rows, total, q, newSARView, nil)
	}
}

// loadSAR loads the path's filing of the caller's organisation (404 otherwise).
func (h *Handler) loadSAR(c *gin.Context) (*store.SARFiling, bool) {
	f, err := h.Store.Cases.GetSAR(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	return f, api.Loaded(c, err)
}

// getSAR answers one filing.
func (h *Handler) getSAR(c *gin.Context) {
	if f, ok := h.loadSAR(c); ok {
		api.OK(c, newSARView(f))
	}
}

// patchSAR changes a draft; a filing no longer in draft is immutable (409).
func (h *Handler) patchSAR(c *gin.Context) {
	var req sarFields
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	req.check(fe, false)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	f, err := h.Store.Cases.UpdateSAR(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c), store.SARChange{
		Subjects: req.Subjects, ActivityFrom: req.ActivityFrom, ActivityTo: req.ActivityTo, Amount: req.Amount, Currency: req.Currency, Narrative: req.Narrative})
	var conflict *store.SARStateError
	if errors.As(err, &conflict) {
		api.Fail(c, http.StatusConflict, "state conflict: filing is "+conflict.From+" and can no longer change")
		return
	}
	if api.Loaded(c, err) {
		api.OK(c, newSARView(f))
	}
}

// submitSAR submits a draft by the effective user, who must not be its drafter: the store's
// conditional write holds both the state and the four-eyes rule in one statement, so no path
// submits a filing twice or by its drafter. The submission workflow then renders and
// delivers it (the gathering Schedule starts it should this start fail).
func (h *Handler) submitSAR(c *gin.Context) {
	var req struct{}
	if !api.BindJSON(c, &req) {
		return
	}
	f, ok := h.loadSAR(c)
	if !ok {
		return
	}
	p, ok := api.RequireUser(c)
	if !ok {
		return
	}
	api.AuditResource(c, f.ID)
	ctx := c.Request.Context()
	f, err := h.Store.Cases.SubmitSAR(ctx, p.OrgID, f.ID, p.UserID, p.APIKeyID)
	var conflict *store.SARStateError
	var incomplete *store.SARIncompleteError
	switch {
	case errors.Is(err, store.ErrSARFourEyes):
		api.Fail(c, http.StatusUnprocessableEntity, workflows.FourEyesMessage)
		return
	case errors.As(err, &conflict):
		api.StateConflict(c, conflict.From, conflict.To)
		return
	case errors.As(err, &incomplete):
		fe := api.FieldErrors{}
		for field, msg := range incomplete.Gaps {
			fe.Add(field, msg)
		}
		api.Unprocessable(c, MsgIncomplete, fe)
		return
	case !api.Loaded(c, err):
		return
	}
	if h.Temporal != nil {
		if err := caseacts.StartSubmission(ctx, h.Temporal, f, h.Config.Cases.DeliveryAttempts); err != nil {
			api.Logger(c).Warn("SAR submission not started; the gathering Schedule starts it", "filingId", f.ID, "error", err)
		}
	}
	api.Accepted(c, newSARView(f))
}
