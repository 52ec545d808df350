package screening

import (
	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/store"
)

// Screening settings (screening product): an organisation's defaults, today the hit
// threshold its screenings and monitoring use when a request names none.

// settingsView is the settings as the API shows them: threshold is the one in effect,
// organisationThreshold the organisation's own (null: config screening.threshold applies).
type settingsView struct {
	Threshold             float64  `json:"threshold"`
	OrganisationThreshold *float64 `json:"organisationThreshold"`
	UpdatedAt             *string  `json:"updatedAt"`
}

func (h *Handler) settingsView(c *gin.Context, s *store.ScreeningSettings) (settingsView, bool) {
	th, err := h.screener.DefaultThreshold(c.Request.Context(), s.OrgID)
	if err != nil {
		api.Internal(c, err)
		return settingsView{}, false
	}
	v := settingsView{Threshold: th}
	if s.Threshold > 0 {
		own := s.Threshold
		v.OrganisationThreshold = &own
		at := api.Timestamp(s.UpdatedAt)
		v.UpdatedAt = &at
	}
	return v, true
}

// getSettings answers the organisation's screening settings.
func (h *Handler) getSettings(c *gin.Context) {
	s, err := h.Store.Screening.Settings(c.Request.Context(), api.PrincipalOf(c).OrgID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	if v, ok := h.settingsView(c, s); ok {
		api.OK(c, v)
	}
}

// settingsRequest is the body of PUT /api/screening-settings; a null threshold returns to
// config screening.threshold.
type settingsRequest struct {
	Threshold *float64 `json:"threshold"`
}

// putSettings changes the organisation's screening settings (audit-logged).
func (h *Handler) putSettings(c *gin.Context) {
	var req settingsRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := scr.FieldErrors{}
	th := scr.CheckThreshold(fe, "threshold", req.Threshold)
	if len(fe) > 0 {
		api.ValidationFailed(c, api.FieldErrors(fe))
		return
	}
	p := api.PrincipalOf(c)
	s := &store.ScreeningSettings{OrgID: p.OrgID, Threshold: th, UpdatedBy: p.UserID, UpdatedAt: h.Now().UTC()}
	if err := h.Store.Screening.SaveSettings(c.Request.Context(), s); err != nil {
		api.Internal(c, err)
		return
	}
	if v, ok := h.settingsView(c, s); ok {
		api.OK(c, v)
	}
}
