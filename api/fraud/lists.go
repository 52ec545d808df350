package fraud

import (
	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	engine "github.com/svcplatform/svc/internal/fraud"
)

// valueListView is a value list as the API shows it.
type valueListView struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
	Count  int      `json:"count"`
}

// listName reads the :name of a value list route, answering 400 when it cannot name one.
func listName(c *gin.Context) (string, bool) {
	name := c.Param("name")
	if !engine.ValidListName(name) {
		api.ValidationFailed(c, api.FieldErrors{"name": {"must be lower case letters, digits and '_', starting with a letter, at most 64 characters"}})
		return "", false
	}
	return name, true
}

// putList replaces a value list whole; rules read it as lists.<name> from the next decision.
func (h *Handler) putList(c *gin.Context) {
	name, ok := listName(c)
	if !ok {
		return
	}
	raw, ok := api.RawBody(c)
	if !ok {
		return
	}
	values, err := engine.ParseListValues(raw)
	if !validation(c, err) {
		return
	}
	if err := h.Store.Fraud.ReplaceList(c.Request.Context(), api.PrincipalOf(c).OrgID, name, values); err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, valueListView{Name: name, Values: values, Count: len(values)})
}

// getList answers a value list (empty when never set: a rule may name it before it is filled).
func (h *Handler) getList(c *gin.Context) {
	name, ok := listName(c)
	if !ok {
		return
	}
	values, err := h.Store.Fraud.ListOf(c.Request.Context(), api.PrincipalOf(c).OrgID, name)
	if err != nil {
		api.Internal(c, err)
		return
	}
	if values == nil {
		values = []string{}
	}
	api.OK(c, valueListView{Name: name, Values: values, Count: len(values)})
}
