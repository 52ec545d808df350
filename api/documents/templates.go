package documents

import (
	"errors"
	"net/http"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
)

// Templates (documents product): an organisation's custom document types. Classification scores every
// document against them; a document they match gets the template's type and fields, and
// template.matched. Templates are immutable: define a new type to change one.

// templateView is a template as the API shows it.
type templateView struct {
	ID          string                   `json:"id"`
	Type        string                   `json:"type"`
	MustInclude []string                 `json:"mustInclude"`
	MustExclude []string                 `json:"mustExclude"`
	Fields      []docintel.TemplateField `json:"fields"`
	CreatedBy   *string                  `json:"createdBy"`
	CreatedAt   string                   `json:"createdAt"`
}

func newTemplateView(t *store.Template) templateView {
	return templateView{ID: t.ID, Type: t.Type, MustInclude: t.MustInclude, MustExclude: api.NonNil(t.MustExclude), Fields: t.Fields,
		CreatedBy: api.Nullable(t.CreatedBy), CreatedAt: api.Timestamp(t.CreatedAt)}
}

// templateRequest is the body of POST /api/templates.
type templateRequest struct {
	Type        string                   `json:"type"`
	MustInclude []string                 `json:"mustInclude"`
	MustExclude []string                 `json:"mustExclude"`
	Fields      []docintel.TemplateField `json:"fields"`
	// ExternalID makes the creation idempotent (middleware).
	ExternalID string `json:"externalId"`
}

// createTemplate defines a custom document type: keywords that must appear, keywords that
// must not, and fields (a label or a regular expression, an optional validator, required or
// not). 400 lists every problem of the definition; a type the organisation has already is 400
// too. 201 with the template.
func (h *Handler) createTemplate(c *gin.Context) {
	var req templateRequest
	if !api.BindJSON(c, &req) {
		return
	}
	p := api.PrincipalOf(c)
	t := &store.Template{ID: ids.New(ids.Template), OrgID: p.OrgID, Type: req.Type, MustInclude: req.MustInclude,
		MustExclude: req.MustExclude, Fields: req.Fields, CreatedBy: p.UserID, CreatedAt: h.Now().UTC()}
	var te *docintel.TemplateError
	if err := t.Engine().Validate(); errors.As(err, &te) {
		fe := api.FieldErrors{}
		for field, msg := range te.Fields {
			fe.Add(field, msg)
		}
		api.ValidationFailed(c, fe)
		return
	} else if err != nil {
		api.Internal(c, err)
		return
	}
	switch err := h.Store.Documents.CreateTemplate(c.Request.Context(), t); {
	case errors.Is(err, store.ErrTemplateTypeTaken):
		api.ValidationFailed(c, api.FieldErrors{"type": {"is already used by another template of the organisation"}})
	case errors.Is(err, store.ErrTooManyTemplates):
		api.Fail(c, http.StatusUnprocessableEntity, err.Error())
	case err != nil:
		api.Internal(c, err)
	default:
		api.Created(c, newTemplateView(t))
	}
}

// listTemplates pages through the organisation's templates, newest first; q matches the type.
func (h *Handler) listTemplates(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Filters: []string{api.FilterQ, api.FilterFrom, api.FilterTo}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Documents.ListTemplates(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.ListRows(c, rows, total, q, newTemplateView, nil)
}

// getTemplate answers one template.
func (h *Handler) getTemplate(c *gin.Context) {
	t, err := h.Store.Documents.GetTemplate(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if api.Loaded(c, err) {
		api.OK(c, newTemplateView(t))
	}
}
