package api_test

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
)

// TestOpenAPIMatchesRouteTable keeps openapi.yaml and the route table equal: every route is
// described, and nothing is described that is not served.
func TestOpenAPIMatchesRouteTable(t *testing.T) {
	doc, err := api.OpenAPIDoc()
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.yaml is not valid OpenAPI: %v", err)
	}
	described := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			described[method+" "+path] = true
		}
	}
	h := apitest.New(t, apitest.Options{})
	param := regexp.MustCompile(`:([A-Za-z0-9_]+)`)
	served := map[string]bool{}
	for _, r := range h.Server.RouteTable() {
		served[r.Method+" "+param.ReplaceAllString(r.Path, "{$1}")] = true
	}
	var missing, extra []string
	for k := range served {
		if !described[k] {
			missing = append(missing, k)
		}
	}
	for k := range described {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("route table and openapi.yaml differ:\n  served but not described: %s\n  described but not served: %s",
			strings.Join(missing, ", "), strings.Join(extra, ", "))
	}
	// Summaries of the route table are the operations' summaries.
	for _, r := range h.Server.RouteTable() {
		op := doc.Paths.Find(param.ReplaceAllString(r.Path, "{$1}")).GetOperation(r.Method)
		if op.Summary != r.Summary {
			t.Errorf("%s %s: route summary %q, openapi summary %q", r.Method, r.Path, r.Summary, op.Summary)
		}
	}
	// The served document is the same one.
	res := h.Do("GET", "/openapi.json", "", nil)
	if res.Status != 200 || res.JSON["openapi"] != "3.0.3" {
		t.Fatalf("/openapi.json = %d %s", res.Status, res.Body)
	}
}

// TestOperationIDs: every operation has an operationId, unique and lowerCamelCase; the
// generated clients name their methods by it (client/, make generate).
func TestOperationIDs(t *testing.T) {
	doc, err := api.OpenAPIDoc()
	if err != nil {
		t.Fatal(err)
	}
	shape := regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)
	seen := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			switch {
			case op.OperationID == "":
				t.Errorf("%s has no operationId", where)
			case !shape.MatchString(op.OperationID):
				t.Errorf("%s: operationId %q is not lowerCamelCase", where, op.OperationID)
			case seen[op.OperationID] != "":
				t.Errorf("%s and %s share operationId %q", where, seen[op.OperationID], op.OperationID)
			}
			seen[op.OperationID] = where
		}
	}
}
