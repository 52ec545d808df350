package screening

import (
	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/store"
	scrwf "github.com/svcplatform/svc/workflows/screening"
)

// CustomerChanged starts the durable rescreen of a monitored customer that was created or
// changed (the customers API calls it after storing the customer). Its workflow id names the
// change, so a retried request starts it once. A failure to start is logged: the customer is
// stored and the next list change rescreens it.
func (h *Handler) CustomerChanged(c *gin.Context, cu *store.Customer) {
	if !cu.Monitoring {
		return
	}
	if h.Temporal == nil {
		h.Logger.Warn("screening rescreen of a changed customer not started: no Temporal client", "customer", cu.ID)
		return
	}
	in := scrwf.CustomerRescreenInput{OrgID: cu.OrgID, CustomerID: cu.ID, ChangedAt: cu.UpdatedAt}
	ctx, cancel := api.TemporalContext(c)
	defer cancel()
	if _, err := h.Temporal.ExecuteWorkflow(ctx, scrwf.CustomerRescreenStartOptions(in), scrwf.CustomerRescreenName, in); err != nil {
		h.Logger.Error("screening rescreen of a changed customer not started", "customer", cu.ID, "error", err)
	}
}
