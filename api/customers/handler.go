// Package customers is the API of the shared customer resource (cus_): platform routes, open
// to every organisation, since screening, fraud, identity and cases all refer to customers.
package customers

import (
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/store"
)

// Deps are what the customers API needs.
type Deps struct {
	Store *store.Store
	// Now is the clock.
	Now func() time.Time
	// Changed is told of every customer created or changed, after it is stored (screening
	// rescreens a monitored one); nil tells no one.
	Changed func(c *gin.Context, customer *store.Customer)
}

// Handler serves the customer endpoints.
type Handler struct{ Deps }

// New builds the customers API.
func New(d Deps) *Handler { return &Handler{Deps: d} }

// Routes are the customer rows of the route table (no product: every organisation has them).
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: "/api/customers", Scope: "customers:write", Body: api.BodyJSON, Idempotent: true, Summary: "create a customer", Handler: h.createCustomer},
		{Method: "GET", Path: "/api/customers", Scope: "customers:view", Summary: "list customers, newest first", Handler: h.listCustomers},
		{Method: "GET", Path: "/api/customers/:id", Scope: "customers:view", Summary: "get a customer", Handler: h.getCustomer},
		{Method: "PATCH", Path: "/api/customers/:id", Scope: "customers:write", Body: api.BodyJSON, Summary: "change a customer's fields, monitoring or status", Handler: h.updateCustomer},
	}
}
