package fraud

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	engine "github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
)

// ruleSetView is a rule set as the API shows it.
type ruleSetView struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	AppliesTo        string `json:"appliesTo"`
	LatestVersion    int    `json:"latestVersion"`
	PublishedVersion *int   `json:"publishedVersion"`
	ShadowVersion    *int   `json:"shadowVersion"`
	CreatedAt        string `json:"createdAt"`
	UpdatedAt        string `json:"updatedAt"`
}

func newRuleSetView(rs *store.FraudRuleSet) ruleSetView {
	return ruleSetView{ID: rs.ID, Name: rs.Name, AppliesTo: rs.AppliesTo, LatestVersion: rs.LatestVersion,
		PublishedVersion: nonZero(rs.PublishedVersion), ShadowVersion: nonZero(rs.ShadowVersion),
		CreatedAt: api.Timestamp(rs.CreatedAt), UpdatedAt: api.Timestamp(rs.UpdatedAt)}
}

func nonZero(v int) *int {
	if v == 0 {
		return nil
	}
	return &v
}

// versionView is a rule set version as the API shows it.
type versionView struct {
	RuleSetID   string            `json:"ruleSetId"`
	Version     int               `json:"version"`
	Status      string            `json:"status"`
	Rules       []engine.RuleSpec `json:"rules"`
	Thresholds  engine.Thresholds `json:"thresholds"`
	DraftedBy   string            `json:"draftedBy"`
	SubmittedBy any               `json:"submittedBy"`
	DecidedBy   any               `json:"decidedBy"`
	PublishedBy any               `json:"publishedBy"`
	CreatedAt   string            `json:"createdAt"`
	UpdatedAt   string            `json:"updatedAt"`
}

func newVersionView(v *store.FraudRuleSetVersion) (versionView, error) {
	spec, err := decodeSpec(v.Spec)
	if err != nil {
		return versionView{}, err
	}
	return versionView{RuleSetID: v.RuleSetID, Version: v.Version, Status: v.Status, Rules: spec.Rules, Thresholds: spec.Thresholds,
		DraftedBy: v.DraftedBy, SubmittedBy: nullable(v.SubmittedBy), DecidedBy: nullable(v.DecidedBy), PublishedBy: nullable(v.PublishedBy),
		CreatedAt: api.Timestamp(v.CreatedAt), UpdatedAt: api.Timestamp(v.UpdatedAt)}, nil
}

func decodeSpec(s string) (engine.VersionSpec, error) {
	var spec engine.VersionSpec
	err := json.Unmarshal([]byte(s), &spec)
	return spec, err
}

// createRuleSetRequest is the body of POST /api/rulesets.
type createRuleSetRequest struct {
	Name       string `json:"name"`
	AppliesTo  string `json:"appliesTo"`
	ExternalID string `json:"externalId"`
}

func (h *Handler) createRuleSet(c *gin.Context) {
	var req createRuleSetRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if req.Name == "" || len(req.Name) > 200 {
		fe.Add("name", "must be 1 to 200 characters")
	}
	if !engine.ValidSubject(req.AppliesTo) {
		fe.Add("appliesTo", "must be transaction or an event type (lower case letters, digits, '_' and '.', such as login)")
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	p := api.PrincipalOf(c)
	rs, err := h.Store.Fraud.CreateRuleSet(c.Request.Context(), p.OrgID, req.Name, req.AppliesTo, p.UserID)
	if errors.Is(err, store.ErrAppliesToTaken) {
		api.ValidationFailed(c, api.FieldErrors{"appliesTo": {"the organisation already has a rule set for " + req.AppliesTo}})
		return
	}
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.Created(c, newRuleSetView(rs))
}

func (h *Handler) listRuleSets(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Filters: []string{api.FilterQ, api.FilterFrom, api.FilterTo}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Fraud.ListRuleSets(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter)
	if api.Loaded(c, err) {
		api.ListRows(c, rows, total, q, newRuleSetView, nil)
	}
}

func (h *Handler) getRuleSet(c *gin.Context) {
	rs, err := h.Store.Fraud.GetRuleSet(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if api.Loaded(c, err) {
		api.OK(c, newRuleSetView(rs))
	}
}

// createVersionRequest is the body of POST /api/rulesets/:id/versions.
type createVersionRequest struct {
	Rules      []engine.RuleSpec `json:"rules"`
	Thresholds engine.Thresholds `json:"thresholds"`
	ExternalID string            `json:"externalId"`
}

// createVersion drafts a version. Its drafter is the key's user, so the key must be bound to one:
// four-eyes compares the approver with the drafter.
func (h *Handler) createVersion(c *gin.Context) {
	ctx := c.Request.Context()
	rs, err := h.Store.Fraud.GetRuleSet(ctx, api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	p, ok := api.RequireUser(c)
	if !ok {
		return
	}
	var req createVersionRequest
	if !api.BindJSON(c, &req) {
		return
	}
	spec := engine.VersionSpec{Rules: req.Rules, Thresholds: req.Thresholds}
	if _, err := engine.Compile(spec, nil); !validation(c, err) {
		return
	}
	next := rs.LatestVersion + 1
	for i := range spec.Rules {
		// A rule keeps its id across versions as long as it keeps its name.
		spec.Rules[i].ID = ids.DeriveFrom(ids.RuleSet, rs.CreatedAt, rs.ID, spec.Rules[i].Name)
		spec.Rules[i].Version = next
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		api.Internal(c, err)
		return
	}
	v, err := h.Store.Fraud.AddRuleSetVersion(ctx, p.OrgID, rs.ID, string(raw), p.UserID)
	if !api.Loaded(c, err) {
		return
	}
	h.answerVersion(c, v, true)
}

func (h *Handler) answerVersion(c *gin.Context, v *store.FraudRuleSetVersion, created bool) {
	view, err := newVersionView(v)
	switch {
	case err != nil:
		api.Internal(c, err)
	case created:
		api.Created(c, view)
	default:
		api.OK(c, view)
	}
}

// versionParam reads :version; a malformed one is a version that does not exist (404).
func versionParam(c *gin.Context) (int, bool) {
	v, err := strconv.Atoi(c.Param("version"))
	if err != nil || v < 1 {
		api.NotFound(c)
		return 0, false
	}
	return v, true
}

func (h *Handler) getVersion(c *gin.Context) {
	n, ok := versionParam(c)
	if !ok {
		return
	}
	v, err := h.Store.Fraud.GetRuleSetVersion(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c), n)
	if api.Loaded(c, err) {
		h.answerVersion(c, v, false)
	}
}

// transition applies a four-eyes action; the store checks it in its conditional write.
func (h *Handler) transition(a engine.Action) gin.HandlerFunc {
	return func(c *gin.Context) {
		n, ok := versionParam(c)
		if !ok {
			return
		}
		ctx := c.Request.Context()
		if _, err := h.Store.Fraud.GetRuleSetVersion(ctx, api.PrincipalOf(c).OrgID, api.PathID(c), n); !api.Loaded(c, err) {
			return
		}
		p, ok := api.RequireUser(c)
		if !ok {
			return
		}
		v, announced, err := h.Store.Fraud.TransitionVersion(ctx, p.OrgID, api.PathID(c), n, a, p.UserID)
		switch {
		case errors.Is(err, engine.ErrFourEyes):
			api.Fail(c, 422, api.MsgFourEyes)
			return
		case errors.Is(err, engine.ErrNotBoundToUser):
			api.Fail(c, 422, api.MsgNotBound)
			return
		case conflict(c, err), !api.Loaded(c, err):
			return
		}
		h.announce(announced) // fraud.ruleset.published, written with the publication
		h.answerVersion(c, v, false)
	}
}

// shadow makes a version run in shadow beside the published one.
func (h *Handler) shadow(c *gin.Context) {
	n, ok := versionParam(c)
	if !ok {
		return
	}
	rs, err := h.Store.Fraud.ShadowVersion(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c), n)
	var sc *store.ShadowConflictError
	if errors.As(err, &sc) {
		api.Fail(c, 409, sc.Error())
		return
	}
	if api.Loaded(c, err) {
		api.OK(c, newRuleSetView(rs))
	}
}
