package statements

import (
	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/ids"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/store"
)

// An organisation's statement templates describe its banks' layouts (markers and producers
// to detect the bank, the columns in printed order, the date layout and number format, the
// balance labels); detection tries them before the built-in ones. Category rules put the
// organisation's categories on transactions before the default rules.

// templateRequest is the body of POST /api/statement-templates: a template without its id.
type templateRequest struct {
	stmt.Template
	// ExternalID makes the creation idempotent (middleware).
	ExternalID string `json:"externalId"`
}

// templateView is a stored template.
type templateView struct {
	stmt.Template
	CreatedBy *string `json:"createdBy"`
	CreatedAt string  `json:"createdAt"`
}

func newTemplateView(t *store.StatementTemplate) templateView {
	v := templateView{Template: t.Template, CreatedBy: api.Nullable(t.CreatedBy), CreatedAt: api.Timestamp(t.CreatedAt)}
	v.ID = t.ID
	return v
}

// createTemplate answers POST /api/statement-templates: 201 with the template (tpl_), or
// 400 naming every unusable field.
func (h *Handler) createTemplate(c *gin.Context) {
	var req templateRequest
	if !api.BindJSON(c, &req) {
		return
	}
	t := req.Template
	t.ID = api.NewID(c, ids.Template)
	if fe := stmt.ValidateTemplate(t); fe != nil {
		api.ValidationFailed(c, fe)
		return
	}
	p := api.PrincipalOf(c)
	row := &store.StatementTemplate{ID: t.ID, OrgID: p.OrgID, Bank: t.Bank, Template: t, CreatedBy: p.UserID, CreatedAt: h.Now().UTC()}
	if err := h.Store.Statements.CreateTemplate(c.Request.Context(), row); err != nil {
		api.Internal(c, err)
		return
	}
	saved, err := h.Store.Statements.GetTemplate(c.Request.Context(), p.OrgID, t.ID)
	if !api.Loaded(c, err) {
		return
	}
	api.Created(c, newTemplateView(saved))
}

// listTemplates answers GET /api/statement-templates (cursor).
func (h *Handler) listTemplates(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{Cursor: true})
	if !ok {
		return
	}
	rows, next, err := h.Store.Statements.ListTemplates(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Cursor)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.CursorRows(c, rows, next, newTemplateView, nil)
}

// getTemplate answers GET /api/statement-templates/{id}.
func (h *Handler) getTemplate(c *gin.Context) {
	t, err := h.Store.Statements.GetTemplate(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	api.OK(c, newTemplateView(t))
}

// deleteTemplate answers DELETE /api/statement-templates/{id}: 204; analyses already
// parsed with it keep their results.
func (h *Handler) deleteTemplate(c *gin.Context) {
	if !api.Loaded(c, h.Store.Statements.DeleteTemplate(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))) {
		return
	}
	api.NoContent(c)
}

// maxCategoryRules bounds an organisation's category rules.
const maxCategoryRules = 200

// categoryRulesView is the organisation's rules and the defaults checked after them.
type categoryRulesView struct {
	Rules     []stmt.CategoryRule `json:"rules"`
	Defaults  []stmt.CategoryRule `json:"defaults"`
	UpdatedBy *string             `json:"updatedBy"`
	UpdatedAt *string             `json:"updatedAt"`
}

func newCategoryRulesView(r *store.StatementCategoryRules) categoryRulesView {
	v := categoryRulesView{Rules: api.NonNil(r.Rules), Defaults: stmt.DefaultCategoryRules(), UpdatedBy: api.Nullable(r.UpdatedBy)}
	if !r.UpdatedAt.IsZero() {
		v.UpdatedAt = api.TimestampPtr(&r.UpdatedAt)
	}
	return v
}

// getCategoryRules answers GET /api/statement-category-rules.
func (h *Handler) getCategoryRules(c *gin.Context) {
	r, err := h.Store.Statements.CategoryRules(c.Request.Context(), api.PrincipalOf(c).OrgID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, newCategoryRulesView(r))
}

// categoryRulesRequest is the body of PUT /api/statement-category-rules.
type categoryRulesRequest struct {
	Rules []stmt.CategoryRule `json:"rules"`
}

// putCategoryRules answers PUT /api/statement-category-rules: the organisation's rules,
// in the order they are checked, replace the previous ones (analyses decided before keep
// their categories; a correction categorises again).
func (h *Handler) putCategoryRules(c *gin.Context) {
	var req categoryRulesRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if req.Rules == nil {
		fe.Add("rules", "is required (an empty list removes every rule)")
	}
	if len(req.Rules) > maxCategoryRules {
		fe.Add("rules", "must hold at most 200 rules")
	}
	for k, msgs := range stmt.ValidateCategoryRules(req.Rules) {
		fe[k] = msgs
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	p := api.PrincipalOf(c)
	r := &store.StatementCategoryRules{OrgID: p.OrgID, Rules: req.Rules, UpdatedBy: p.UserID, UpdatedAt: h.Now().UTC()}
	if err := h.Store.Statements.SetCategoryRules(c.Request.Context(), r); err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, newCategoryRulesView(r))
}
