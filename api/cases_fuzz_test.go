package api_test

import (
	"testing"

	"github.com/svcplatform/svc/api/apitest"
)

// FuzzCaseAndSARBodies sends arbitrary bodies to the cases product's parsers: every answer is
// a success or a client error (503 where a valid change needs the case workflow, which this
// harness has not), never a 500.
func FuzzCaseAndSARBodies(f *testing.F) {
	h := apitest.New(f, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	caseID := h.Do("POST", "/api/cases", h.AdminKey, map[string]any{"title": "fuzz"}).Data()["id"].(string)
	sarID := h.Do("POST", "/api/sar-filings", h.AdminKey, map[string]any{"caseId": caseID, "activityFrom": "2026-01-01",
		"activityTo": "2026-01-02", "amount": 1, "narrative": "n"}).Data()["id"].(string)
	for _, s := range []string{
		`{"title":"t","priority":"high","alertIds":[],"dueAt":"2026-12-01T00:00:00Z"}`, `{"title":"t","customerId":"cus_nope"}`,
		`{"caseId":"` + caseID + `","activityFrom":"2026-01-01","activityTo":"2026-01-31","amount":1e20,"narrative":"x","currency":"EUR"}`,
		`{"subjects":["cus_1"],"narrative":"changed"}`, `{"amount":"1"}`, `{"activityFrom":"2026-02-30"}`, `{"body":"comment"}`,
		`{"evidence":[{"id":"scr_1","note":"n"}]}`, `{"dueAt":"2026-01-01T00:00:00+25:00"}`, `{"title":"\u0000"}`,
		`[]`, `null`, `"x"`, `{`, ``, `{}{}`, `{"externalId":5}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		hh := h.With(t)
		for _, req := range []apitest.Request{
			{Method: "POST", Path: "/api/cases", Key: h.AdminKey, Body: body},
			{Method: "PATCH", Path: "/api/cases/" + caseID, Key: h.AdminKey, Body: body},
			{Method: "POST", Path: "/api/cases/" + caseID + "/comments", Key: h.AdminKey, Body: body},
			{Method: "POST", Path: "/api/sar-filings", Key: h.AdminKey, Body: body},
			{Method: "PATCH", Path: "/api/sar-filings/" + sarID, Key: h.AdminKey, Body: body},
		} {
			res := hh.Send(req)
			switch res.Status {
			case 200, 201, 400, 404, 409, 413, 422, 503:
			default:
				t.Fatalf("%s %s %q → %d %s", req.Method, req.Path, body, res.Status, res.Body)
			}
		}
	})
}
