package identity

import (
	"errors"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	idvwf "github.com/svcplatform/svc/workflows/identity"
)

// verificationView is a verification as lists show it.
type verificationView struct {
	ID           string      `json:"id"`
	Status       string      `json:"status"`
	CustomerID   *string     `json:"customerId"`
	Reference    *string     `json:"reference"`
	ExternalID   *string     `json:"externalId"`
	Claimed      idv.Claimed `json:"claimed"`
	Policy       idv.Policy  `json:"policy"`
	AttemptCount int         `json:"attemptCount"`
	AttemptsLeft int         `json:"attemptsLeft"`
	Reasons      []string    `json:"reasons"`
	ReviewedBy   *string     `json:"reviewedBy"`
	ReviewedAt   *string     `json:"reviewedAt"`
	// ReviewComment is the reviewer's note on the decision.
	ReviewComment *string `json:"reviewComment"`
	ExpiresAt     string  `json:"expiresAt"`
	CreatedAt     string  `json:"createdAt"`
	UpdatedAt     string  `json:"updatedAt"`
	CompletedAt   *string `json:"completedAt"`
}

func newVerificationView(v *store.IdentityVerification) verificationView {
	dv := idv.Verification{Policy: v.Policy, Attempts: v.Attempts}
	return verificationView{
		ID: v.ID, Status: v.Status, CustomerID: api.Nullable(v.CustomerID), Reference: api.Nullable(v.Reference),
		ExternalID: api.Nullable(v.ExternalID), Claimed: v.Claimed, Policy: v.Policy.WithDefaults(),
		AttemptCount: v.Attempts, AttemptsLeft: dv.AttemptsLeft(), Reasons: api.NonNil(v.Reasons),
		ReviewedBy: api.Nullable(v.ReviewedBy), ReviewedAt: api.TimestampPtr(v.ReviewedAt),
		ReviewComment: api.Nullable(v.ReviewComment),
		ExpiresAt:     api.Timestamp(v.ExpiresAt), CreatedAt: api.Timestamp(v.CreatedAt), UpdatedAt: api.Timestamp(v.UpdatedAt),
		CompletedAt: api.TimestampPtr(v.CompletedAt),
	}
}

// verificationDetailView is one verification with its attempts and their checks.
type verificationDetailView struct {
	verificationView
	Attempts []attemptView `json:"attempts"`
}

// createVerificationRequest is the body of POST /api/identity/verifications.
type createVerificationRequest struct {
	CustomerID string      `json:"customerId"`
	Reference  string      `json:"reference"`
	Claimed    idv.Claimed `json:"claimed"`
	Policy     idv.Policy  `json:"policy"`
	ExternalID string      `json:"externalId"`
}

func (r *createVerificationRequest) validate(h *Handler) api.FieldErrors {
	fe := api.FieldErrors{}
	r.Claimed = r.Claimed.Normalized()
	for k, v := range r.Claimed.Validate("claimed", h.Now()) {
		fe[k] = v
	}
	for k, v := range r.Policy.Validate("policy") {
		fe[k] = v
	}
	if len(r.CustomerID) > 40 || !utf8.ValidString(r.CustomerID) {
		fe.Add("customerId", "must be at most 40 characters")
	}
	if len(r.Reference) > 200 || !utf8.ValidString(r.Reference) {
		fe.Add("reference", "must be at most 200 characters")
	}
	if len(r.ExternalID) > 200 {
		fe.Add("externalId", "must be at most 200 characters")
	}
	return fe
}

// createVerification answers POST /api/identity/verifications: the verification is stored
// waiting for input and its workflow started (its expiry timer runs from now): 201.
func (h *Handler) createVerification(c *gin.Context) {
	var req createVerificationRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if fe := req.validate(h); fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	now := h.Now().UTC()
	dv := idv.New(req.Policy, now)
	v := &store.IdentityVerification{
		ID: ids.New(ids.IdentityVerification), OrgID: api.PrincipalOf(c).OrgID, CustomerID: req.CustomerID,
		Reference: req.Reference, ExternalID: req.ExternalID, Claimed: req.Claimed, Policy: dv.Policy,
		ExpiresAt: dv.ExpiresAt, Reasons: []string{},
	}
	ctx := c.Request.Context()
	if err := h.Store.Identity.CreateVerification(ctx, v); err != nil {
		api.Internal(c, err)
		return
	}
	in := idvwf.VerificationInput{OrgID: v.OrgID, VerificationID: v.ID, CustomerID: v.CustomerID, Reference: v.Reference,
		ExternalID: v.ExternalID, ExpiresAt: v.ExpiresAt, MaxAttempts: v.Policy.MaxAttempts}
	tctx, cancel := api.TemporalContext(c)
	defer cancel()
	if _, err := h.Temporal.ExecuteWorkflow(tctx, idvwf.StartOptions(in), idvwf.VerificationName, in); err != nil {
		if derr := h.Store.Identity.DeleteUnstarted(tctx, v.OrgID, v.ID); derr != nil {
			err = errors.Join(err, derr)
		}
		api.Logger(c).Error("start identity verification", "verificationId", v.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	api.Created(c, newVerificationView(v))
}

// listVerifications answers GET /api/identity/verifications (offset; filters q on the
// reference, status, customerId, externalId, from, to).
func (h *Handler) listVerifications(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{
		Filters:  []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterCustomerID, api.FilterExternalID},
		Statuses: statuses(),
	})
	if !ok {
		return
	}
	rows, total, err := h.Store.Identity.ListVerifications(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.ListRows(c, rows, total, q, newVerificationView, nil)
}

func statuses() []string {
	var out []string
	for _, s := range idv.Table.States() {
		out = append(out, string(s))
	}
	return out
}

// loadVerification loads the path's verification of the caller's organisation (404 otherwise).
func (h *Handler) loadVerification(c *gin.Context) (*store.IdentityVerification, bool) {
	v, err := h.Store.Identity.GetVerification(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return nil, false
	}
	return v, true
}

// getVerification answers GET /api/identity/verifications/{id}.
func (h *Handler) getVerification(c *gin.Context) {
	v, ok := h.loadVerification(c)
	if !ok {
		return
	}
	atts, err := h.Store.Identity.AttemptsOf(c.Request.Context(), v.OrgID, v.ID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, verificationDetailView{verificationView: newVerificationView(v), Attempts: api.Views(atts, newAttemptView)})
}

// reviewRequest is the body of POST /api/identity/verifications/{id}/review.
type reviewRequest struct {
	Decision idv.ReviewDecision `json:"decision"`
	Comment  string             `json:"comment"`
}

// maxReviewComment bounds a reviewer's comment.
const maxReviewComment = 2000

// reviewVerification answers POST /api/identity/verifications/{id}/review: a reviewer (a key
// bound to a user; the audit log records the user and the key) approves, rejects or asks for
// a new document. The verification's workflow decides through an Update whose validator
// refuses any state but review (409) before anything is recorded.
func (h *Handler) reviewVerification(c *gin.Context) {
	var req reviewRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if req.Decision.Target() == "" {
		fe.Add("decision", "must be approve, reject or request_resubmission")
	}
	if len(req.Comment) > maxReviewComment {
		fe.Add("comment", "must be at most 2000 characters")
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	v, ok := h.loadVerification(c)
	if !ok {
		return
	}
	p, ok := api.RequireUser(c)
	if !ok {
		return
	}
	api.AuditResource(c, v.ID)
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	ctx, cancel := api.TemporalContext(c)
	defer cancel()
	upd, err := h.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: v.ID, UpdateName: idvwf.UpdateReview, UpdateID: reviewUpdateID(v, p.UserID, req.Decision),
		WaitForStage: client.WorkflowUpdateStageCompleted,
		Args:         []any{idvwf.ReviewRequest{Decision: req.Decision, ActorUserID: p.UserID, APIKeyID: p.APIKeyID, Comment: req.Comment}},
	})
	if err == nil {
		err = upd.Get(ctx, nil)
	}
	var gone *serviceerror.NotFound
	if status, msg, ok := workflows.UpdateErrorStatus(err); ok {
		api.Fail(c, status, msg)
		return
	} else if err != nil && !errors.As(err, &gone) {
		api.Logger(c).Error("review identity verification", "verificationId", v.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	if v, ok = h.loadVerification(c); !ok {
		return
	}
	if gone != nil && (v.Status != string(req.Decision.Target()) || v.ReviewedBy != p.UserID) {
		api.StateConflict(c, v.Status, string(req.Decision.Target()))
		return
	}
	api.OK(c, newVerificationView(v))
}

// reviewUpdateID keys a reviewer's decision so that a retried request is one Update, while a
// later review of the same verification (after a resubmission, on a new attempt) is another:
// Temporal answers a repeated Update id with the first one's result.
func reviewUpdateID(v *store.IdentityVerification, userID string, d idv.ReviewDecision) string {
	return v.ID + ":" + strconv.Itoa(v.Attempts) + ":" + userID + ":" + string(d)
}
