package accounts

import (
	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
)

// orgView is an organisation as the API shows it: capabilities lists the products it may use
// (every product when the stored set is "*").
type orgView struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Capabilities []string `json:"capabilities"`
}

func newOrgView(o *store.Organization) orgView {
	return orgView{ID: o.ID, Name: o.Name, Capabilities: o.Caps().List()}
}

type capabilitiesRequest struct {
	Capabilities *[]string `json:"capabilities"`
}

// setCapabilities replaces the caller's organisation's products (SPEC 7.3): ["*"] grants every
// product, present and future. The audit log records it like every write.
func (h *Handler) setCapabilities(c *gin.Context) {
	var req capabilitiesRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if req.Capabilities == nil {
		api.ValidationFailed(c, api.FieldErrors{"capabilities": {"is required: a list of products, or [\"*\"] for every product"}})
		return
	}
	caps, err := auth.NewCapabilities(*req.Capabilities)
	if err != nil {
		api.ValidationFailed(c, api.FieldErrors{"capabilities": {err.Error()}})
		return
	}
	p := api.PrincipalOf(c)
	org, err := h.Store.Orgs.SetCapabilities(c.Request.Context(), p.OrgID, caps)
	if err != nil {
		api.Internal(c, err)
		return
	}
	// A removed product disconnects the services that called it or that it called: their keys
	// stop working now (SPEC 5.6), not at their next use.
	if _, err := h.Store.ServiceKeys.RevokeDisconnected(c.Request.Context(), p.OrgID, org.Caps(), h.Now()); err != nil {
		api.Internal(c, err)
		return
	}
	api.AuditResource(c, org.ID)
	api.ForgetKeys(c)
	api.OK(c, newOrgView(org))
}

// getOrganization shows the caller's organisation.
func (h *Handler) getOrganization(c *gin.Context) {
	org, err := h.Store.Orgs.Get(c.Request.Context(), api.PrincipalOf(c).OrgID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, newOrgView(org))
}
