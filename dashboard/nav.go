package dashboard

import (
	"net/http"
	"slices"

	"github.com/svcplatform/svc/internal/auth"
)

// sections are the navigation's entries in order: a product's only for an organisation that
// uses the product, as the API answers its routes only to one (403 org capability disabled);
// those of no product (keys, users, the audit log) for every organisation.
var sections = []struct {
	product, name, label string
}{
	{auth.ProductOrchestration, "approvals", "Approvals"},
	{auth.ProductOrchestration, "executions", "Executions"},
	{auth.ProductDocuments, "documents", "Documents"},
	{auth.ProductCases, "cases", "Cases"},
	{auth.ProductCases, "alerts", "Alerts"},
	{auth.ProductCases, "sar-filings", "SAR filings"},
	{auth.ProductScreening, "screenings", "Screenings"},
	{auth.ProductFraud, "decisions", "Fraud"},
	{auth.ProductStatements, "analyses", "Statements"},
	{auth.ProductIdentity, "verifications", "Identity"},
	{auth.ProductWebhooks, "webhooks", "Webhooks"},
	{"", "keys", "API keys"},
	{"", "users", "Users"},
	{"", "audit", "Audit log"},
}

// nav is the visitor's navigation with current marked.
func (q *request) nav(current string) []navItem {
	products := q.products()
	var out []navItem
	for _, s := range sections {
		if s.product == "" || slices.Contains(products, s.product) {
			out = append(out, navItem{Name: s.name, Label: s.label, Current: s.name == current})
		}
	}
	return out
}

// home sends the visitor to the first section of their navigation.
func (d *Dashboard) home(q *request) {
	q.redirect(Prefix + "/" + q.nav("")[0].Name)
}

// products are the visitor's organisation's products, as the API says (GET /api/organization);
// none when the call fails.
func (q *request) products() []string {
	a := q.call(http.MethodGet, "/api/organization", nil, nil)
	list, _ := a.Data()["capabilities"].([]any)
	out := make([]string, 0, len(list))
	for _, p := range list {
		out = append(out, str(p))
	}
	return out
}
