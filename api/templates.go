package api

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/docintel"
	"github.com/svcplatform/svc/ids"
	"github.com/svcplatform/svc/store"
)

// Templates (issue 6): an organisation's custom document types. Classification scores every
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
	return templateView{ID: t.ID, Type: t.Type, MustInclude: t.MustInclude, MustExclude: nonNil(t.MustExclude), Fields: t.Fields,
		CreatedBy: nullable(t.CreatedBy), CreatedAt: Timestamp(t.CreatedAt)}
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
func (s *Server) createTemplate(c *gin.Context) {
	var req templateRequest
	if !BindJSON(c, &req) {
		return
	}
	p := PrincipalOf(c)
	t := &store.Template{ID: ids.New(ids.Template), OrgID: p.OrgID, Type: req.Type, MustInclude: req.MustInclude,
		MustExclude: req.MustExclude, Fields: req.Fields, CreatedBy: p.UserID, CreatedAt: s.Now().UTC()}
	var te *docintel.TemplateError
	if err := t.Engine().Validate(); errors.As(err, &te) {
		fe := FieldErrors{}
		for field, msg := range te.Fields {
			fe.Add(field, msg)
		}
		ValidationFailed(c, fe)
		return
	} else if err != nil {
		Internal(c, err)
		return
	}
	switch err := s.Store.CreateTemplate(c.Request.Context(), t); {
	case errors.Is(err, store.ErrTemplateTypeTaken):
		ValidationFailed(c, FieldErrors{"type": {"is already used by another template of the organisation"}})
	case errors.Is(err, store.ErrTooManyTemplates):
		Fail(c, http.StatusUnprocessableEntity, err.Error())
	case err != nil:
		Internal(c, err)
	default:
		Created(c, newTemplateView(t))
	}
}

// listTemplates pages through the organisation's templates, newest first; q matches the type.
func (s *Server) listTemplates(c *gin.Context) {
	q, ok := ParseList(c, ListSpec{MaxLimit: 100, Filters: []string{FilterQ, FilterFrom, FilterTo}})
	if !ok {
		return
	}
	rows, total, err := s.Store.ListTemplates(c.Request.Context(), PrincipalOf(c).OrgID, q.Page, q.Filter)
	if err != nil {
		Internal(c, err)
		return
	}
	ListRows(c, rows, total, q, newTemplateView, nil)
}

// getTemplate answers one template.
func (s *Server) getTemplate(c *gin.Context) {
	t, err := s.Store.GetTemplate(c.Request.Context(), PrincipalOf(c).OrgID, PathID(c))
	if Loaded(c, err) {
		OK(c, newTemplateView(t))
	}
}
