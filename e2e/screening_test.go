package e2e

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	temporalclient "go.temporal.io/sdk/client"

	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/internal/screening/fixtures"
	scrwf "github.com/svcplatform/svc/workflows/screening"
)

// TestScreeningEndToEnd runs the screening product on the dev stack: a platform list served
// over loopback HTTP is refreshed by its Temporal Schedule, a monitored customer is screened
// when created, and a list change rescreens it against the delta, raising an alert and the
// screening events to a subscribed receiver.
func TestScreeningEndToEnd(t *testing.T) {
	var mu sync.Mutex
	var file []byte
	serve := func(entities []scr.Entity) {
		var b bytes.Buffer
		if err := (&fixtures.List{Entities: entities}).WriteOpenSanctions(&b); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		file = b.Bytes()
		mu.Unlock()
	}
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = w.Write(file)
	}))
	defer src.Close()
	base := []scr.Entity{{ID: "os-1", Type: scr.Person, Name: "Viktor Anatolyevich Bout", BirthDates: []scr.Date{{Year: 1967, Month: 1, Day: 13}}}}
	serve(base)

	s := boot(t, t.TempDir(), bootOptions{env: []string{
		"SVC_SCREENING_SOURCES=watch|opensanctions|" + src.URL + "/targets.simple.csv",
		"SVC_SCREENING_ALLOW_CIDRS=127.0.0.0/8",
		"SVC_SCREENING_REFRESH_EVERY=1h",
	}})
	admin := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}
	sink := newEventSink(t)
	sink.subscribe(admin, "*")
	tc := s.App.Temporal
	refresh := func(version float64) map[string]any {
		t.Helper()
		if err := tc.ScheduleClient().GetHandle(context.Background(), scrwf.RefreshScheduleID).Trigger(context.Background(), temporalclient.ScheduleTriggerOptions{}); err != nil {
			t.Fatalf("trigger the refresh Schedule: %v", err)
		}
		var list map[string]any
		eventually(t, time.Minute, "list version", func() bool {
			for _, l := range admin.do("GET", "/api/screening-lists", nil).Body["data"].([]any) {
				if m := l.(map[string]any); m["name"] == "watch" && m["version"].(float64) == version {
					list = m
					return true
				}
			}
			return false
		})
		return list
	}
	list := refresh(1)
	if list["kind"] != "opensanctions" || list["entityCount"].(float64) != 1 {
		t.Fatalf("list = %v", list)
	}

	res := admin.do("POST", "/api/customers", map[string]any{"type": "person", "fullName": "Ivan Kuznetsov", "birthDate": "1971-05-06", "monitoring": true})
	if res.Status != 201 {
		t.Fatalf("customer: %d %s", res.Status, res.Raw)
	}
	cus := res.Body["data"].(map[string]any)
	cusID := cus["id"].(string)
	monitoring := func(status string) map[string]any {
		t.Helper()
		var found map[string]any
		eventually(t, time.Minute, "a "+status+" monitoring screening", func() bool {
			for _, r := range admin.do("GET", "/api/screenings?customerId="+cusID, nil).Body["rows"].([]any) {
				if m := r.(map[string]any); m["trigger"] == "monitoring" && m["status"] == status {
					found = m
					return true
				}
			}
			return false
		})
		return found
	}
	monitoring("clear") // the customer's creation screened it against every list

	serve(append(base, scr.Entity{ID: "os-2", Type: scr.Person, Name: "Ivan Sergeyevich Kuznetsov", BirthDates: []scr.Date{{Year: 1971}}}))
	v2 := refresh(2)
	hit := monitoring("potential_match")
	if hits := hit["hits"].([]any); len(hits) != 1 || hits[0].(map[string]any)["entityId"] != "os-2" {
		t.Fatalf("monitoring screening = %v", hit)
	}
	eventually(t, 30*time.Second, "screening.alert_raised", func() bool {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		for _, ev := range sink.events {
			if ev.Event == "screening.alert_raised" && ev.Data["screeningId"] == hit["id"] && ev.Data["customerId"] == cusID {
				return true
			}
		}
		return false
	})
	dir := filepath.Join("..", "workflows", "screening", "testdata")
	// The Schedule names its runs after itself; the latest refresh is the one that made v2.
	var runs *workflowservice.ListWorkflowExecutionsResponse
	eventually(t, 30*time.Second, "the completed refresh runs in visibility", func() bool {
		var err error
		runs, err = tc.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowType = '" + scrwf.RefreshName + "' AND ExecutionStatus = 'Completed'"})
		return err == nil && len(runs.Executions) >= 2
	})
	recordHistoryAt(t, tc, runs.Executions[0].Execution.WorkflowId, filepath.Join(dir, "refresh_changed.json"))
	recordHistoryAt(t, tc, scrwf.RescreenID(v2["id"].(string), 2), filepath.Join(dir, "rescreen_list_v2.json"))
	changed, _ := time.Parse(time.RFC3339Nano, cus["updatedAt"].(string))
	recordHistoryAt(t, tc, scrwf.CustomerRescreenStartOptions(scrwf.CustomerRescreenInput{CustomerID: cusID, ChangedAt: changed}).ID,
		filepath.Join(dir, "customer_rescreen_created.json"))
}
