package customers

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	cus "github.com/svcplatform/svc/internal/customers"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
)

// customerView is a customer as the API shows it.
type customerView struct {
	ID          string           `json:"id"`
	Type        string           `json:"type"`
	FullName    string           `json:"fullName"`
	BirthDate   *string          `json:"birthDate"`
	Nationality *string          `json:"nationality"`
	Country     *string          `json:"country"`
	Identifiers []cus.Identifier `json:"identifiers"`
	ExternalID  *string          `json:"externalId"`
	Monitoring  bool             `json:"monitoring"`
	Status      string           `json:"status"`
	CreatedAt   string           `json:"createdAt"`
	UpdatedAt   string           `json:"updatedAt"`
}

func newCustomerView(c *store.Customer) customerView {
	idents := c.Identifiers
	if idents == nil {
		idents = []cus.Identifier{}
	}
	return customerView{ID: c.ID, Type: c.Type, FullName: c.FullName, BirthDate: api.Nullable(c.BirthDate),
		Nationality: api.Nullable(c.Nationality), Country: api.Nullable(c.Country), Identifiers: idents,
		ExternalID: api.Nullable(c.ExternalID), Monitoring: c.Monitoring, Status: c.Status,
		CreatedAt: api.Timestamp(c.CreatedAt), UpdatedAt: api.Timestamp(c.UpdatedAt)}
}

// customerFields are the writable fields, shared by creation and PATCH (absent: unchanged).
type customerFields struct {
	Type        api.Optional[string]           `json:"type"`
	FullName    api.Optional[string]           `json:"fullName"`
	BirthDate   api.Optional[string]           `json:"birthDate"`
	Nationality api.Optional[string]           `json:"nationality"`
	Country     api.Optional[string]           `json:"country"`
	Identifiers api.Optional[[]cus.Identifier] `json:"identifiers"`
	Monitoring  api.Optional[bool]             `json:"monitoring"`
}

// apply validates the fields that are set and writes them to c; fe names every bad one.
func (f *customerFields) apply(c *store.Customer, fe api.FieldErrors, h *Handler) {
	if f.Type.Set {
		if t := cus.Type(f.Type.Value); f.Type.Null || !cus.ValidType(t) {
			fe.Add("type", "must be person or organisation")
		} else {
			c.Type = string(t)
		}
	}
	if f.FullName.Set {
		name := strings.TrimSpace(f.FullName.Value)
		if f.FullName.Null || name == "" || len(name) > cus.MaxName {
			fe.Add("fullName", fmt.Sprintf("is required, at most %d characters", cus.MaxName))
		} else {
			c.FullName = name
		}
	}
	if f.BirthDate.Set {
		switch {
		case f.BirthDate.Null:
			c.BirthDate = ""
		case !cus.ValidBirthDate(f.BirthDate.Value, h.Now()):
			fe.Add("birthDate", "must be a date (YYYY-MM-DD), not in the future")
		default:
			c.BirthDate = f.BirthDate.Value
		}
	}
	country := func(name string, o api.Optional[string], dst *string) {
		switch {
		case !o.Set:
		case o.Null:
			*dst = ""
		case !cus.ValidCountry(o.Value):
			fe.Add(name, "must be an ISO 3166-1 alpha-2 code in capitals, e.g. ID")
		default:
			*dst = o.Value
		}
	}
	country("nationality", f.Nationality, &c.Nationality)
	country("country", f.Country, &c.Country)
	if f.Identifiers.Set {
		idents := f.Identifiers.Value
		if len(idents) > cus.MaxIdentifiers {
			fe.Add("identifiers", fmt.Sprintf("must hold at most %d identifiers", cus.MaxIdentifiers))
		}
		for i, id := range idents {
			if id.Type == "" || len(id.Type) > 40 {
				fe.Add(fmt.Sprintf("identifiers[%d].type", i), "is required, at most 40 characters")
			}
			if id.Value == "" || len(id.Value) > cus.MaxIdentifier {
				fe.Add(fmt.Sprintf("identifiers[%d].value", i), fmt.Sprintf("is required, at most %d characters", cus.MaxIdentifier))
			}
			if id.Country != "" && !cus.ValidCountry(id.Country) {
				fe.Add(fmt.Sprintf("identifiers[%d].country", i), "must be an ISO 3166-1 alpha-2 code in capitals")
			}
		}
		c.Identifiers = idents
	}
	if f.Monitoring.Set {
		if f.Monitoring.Null {
			fe.Add("monitoring", "must be true or false")
		} else {
			c.Monitoring = f.Monitoring.Value
		}
	}
}

// createRequest is the body of POST /api/customers.
type createRequest struct {
	customerFields
	// ExternalID makes the creation idempotent (middleware) and is kept on the customer.
	ExternalID string `json:"externalId"`
}

// createCustomer creates an active customer: type and fullName are required.
func (h *Handler) createCustomer(c *gin.Context) {
	var req createRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if !req.Type.Set {
		fe.Add("type", "is required: person or organisation")
	}
	if !req.FullName.Set {
		fe.Add("fullName", "is required")
	}
	p := api.PrincipalOf(c)
	now := h.Now().UTC()
	row := &store.Customer{ID: api.NewID(c, ids.Customer), OrgID: p.OrgID, ExternalID: req.ExternalID,
		Status: string(cus.StatusActive), CreatedAt: now, UpdatedAt: now}
	req.apply(row, fe, h)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	if err := h.Store.Customers.Create(c.Request.Context(), row); err != nil {
		api.Internal(c, err)
		return
	}
	got, err := h.Store.Customers.Get(c.Request.Context(), p.OrgID, row.ID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	h.changed(c, got)
	api.Created(c, newCustomerView(got))
}

// customerStatuses are the accepted values of the status filter.
var customerStatuses = cus.Statuses.Names()

// listCustomers pages through the organisation's customers, newest first: q (id, name,
// externalId), status, from/to (created), externalId, summary.
func (h *Handler) listCustomers(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Statuses: customerStatuses,
		Filters: []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterExternalID, api.FilterSummary}})
	if !ok {
		return
	}
	org := api.PrincipalOf(c).OrgID
	rows, total, err := h.Store.Customers.List(c.Request.Context(), org, q.Page, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	var summary map[string]int64
	if q.Filter.Summary {
		if summary, err = h.Store.Customers.Count(c.Request.Context(), org, q.Filter); err != nil {
			api.Internal(c, err)
			return
		}
		summary = api.SummaryOf(summary, customerStatuses)
	}
	api.ListRows(c, rows, total, q, newCustomerView, summary)
}

// getCustomer answers one customer of the organisation (404 for another's).
func (h *Handler) getCustomer(c *gin.Context) {
	row, err := h.Store.Customers.Get(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	api.OK(c, newCustomerView(row))
}

// updateRequest is the body of PATCH /api/customers/{id}.
type updateRequest struct {
	customerFields
	Status api.Optional[string] `json:"status"`
}

// updateCustomer changes the fields present in the body; a status change follows the
// customer's transition table (409 otherwise).
func (h *Handler) updateCustomer(c *gin.Context) {
	var req updateRequest
	if !api.BindJSON(c, &req) {
		return
	}
	row, err := h.Store.Customers.Get(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	from := cus.Status(row.Status)
	fe := api.FieldErrors{}
	req.apply(row, fe, h)
	to := from
	if req.Status.Set {
		if to = cus.Status(req.Status.Value); req.Status.Null || !cus.Statuses.Valid(to) {
			fe.Add("status", "must be active or inactive")
		}
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	if to != from {
		if err := cus.Statuses.Check(from, to); err != nil {
			api.StateConflict(c, string(from), string(to))
			return
		}
		row.Status = string(to)
	}
	err = h.Store.Customers.Save(c.Request.Context(), row, from)
	var se *store.StateError
	switch {
	case errors.As(err, &se):
		api.StateConflict(c, se.Status, string(to))
		return
	case err != nil:
		api.Internal(c, err)
		return
	}
	h.changed(c, row)
	api.OK(c, newCustomerView(row))
}

// changed tells Deps.Changed of a stored customer.
func (h *Handler) changed(c *gin.Context, row *store.Customer) {
	if h.Changed != nil {
		h.Changed(c, row)
	}
}
