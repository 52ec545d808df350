package dashboard

import "net/http"

// products are the visitor's organisation's products, as the API says (GET /api/organization):
// the navigation shows a product's pages only to an organisation that uses it, as the API
// answers its routes only to one (403 org capability disabled). None when the call fails.
func (q *request) products() []string {
	a := q.call(http.MethodGet, "/api/organization", nil, nil)
	list, _ := a.Data()["capabilities"].([]any)
	out := make([]string, 0, len(list))
	for _, p := range list {
		out = append(out, str(p))
	}
	return out
}
