package screening_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	scracts "github.com/svcplatform/svc/activities/screening"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/cases"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/internal/screening/fixtures"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/workflows"
	scrwf "github.com/svcplatform/svc/workflows/screening"
)

// listServer serves one list file over loopback HTTP; the test swaps its body.
type listServer struct {
	mu   sync.Mutex
	body []byte
}

func (s *listServer) set(b []byte) { s.mu.Lock(); s.body = b; s.mu.Unlock() }

func (s *listServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = w.Write(s.body)
}

func openSanctionsFile(t *testing.T, entities []scr.Entity) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (&fixtures.List{Entities: entities}).WriteOpenSanctions(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// env runs the screening workflows with the real activities over st (the SDK test server,
// time skipping); events are collected instead of published.
func env(st *store.Store) (*testsuite.TestWorkflowEnvironment, *scracts.Activities) {
	var suite testsuite.WorkflowTestSuite
	e := suite.NewTestWorkflowEnvironment()
	acts := &scracts.Activities{Screener: scracts.NewScreener(st, nil, nil), HTTP: http.DefaultClient}
	e.RegisterWorkflowWithOptions(scrwf.Refresh, workflow.RegisterOptions{Name: scrwf.RefreshName})
	e.RegisterWorkflowWithOptions(scrwf.Rescreen, workflow.RegisterOptions{Name: scrwf.RescreenName})
	e.RegisterWorkflowWithOptions(scrwf.CustomerRescreen, workflow.RegisterOptions{Name: scrwf.CustomerRescreenName})
	e.RegisterActivityWithOptions(acts.RefreshList, activity.RegisterOptions{Name: scrwf.ActivityRefreshList})
	e.RegisterActivityWithOptions(acts.RescreenBatch, activity.RegisterOptions{Name: scrwf.ActivityRescreenBatch})
	e.RegisterActivityWithOptions(acts.RescreenCustomer, activity.RegisterOptions{Name: scrwf.ActivityRescreenCustomer})
	e.RegisterActivityWithOptions(func(_ context.Context, in workflows.PublishEventInput) (workflows.PublishEventResult, error) {
		return workflows.PublishEventResult{EventID: in.EventID}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityPublishEvent})
	return e, acts
}

// TestRefreshStoresNewVersionsOnlyOnChange: a source read over HTTP becomes version 1; the
// same bytes again change nothing; a changed file makes version 2 with its delta; a malformed
// or truncated file fails the refresh and version 2 stays in service.
func TestRefreshStoresNewVersionsOnlyOnChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		list := fixtures.Generate(7, 200)
		srv := &listServer{body: openSanctionsFile(t, list.Entities)}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		_, acts := env(st)
		// Two organisations hear of a platform list's versions.
		for _, name := range []string{"acme", "globex"} {
			if _, err := st.Orgs.Create(ctx, name); err != nil {
				t.Fatal(err)
			}
		}
		src := "os-test|opensanctions|" + hs.URL + "/targets.simple.csv"
		at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

		res, err := acts.RefreshList(ctx, scrwf.RefreshListInput{Source: src, At: at})
		if err != nil || !res.Changed || res.Version != 1 || res.Entities != 200 {
			t.Fatalf("first refresh = %+v, %v", res, err)
		}
		res, err = acts.RefreshList(ctx, scrwf.RefreshListInput{Source: src, At: at.Add(time.Hour)})
		if err != nil || res.Changed || res.Version != 1 {
			t.Fatalf("same content = %+v, %v; want version 1 unchanged", res, err)
		}

		next := append([]scr.Entity{}, list.Entities[1:]...) // entity 0 removed
		next[0].Aliases = append(next[0].Aliases, "A New Alias")
		next = append(next, scr.Entity{ID: "new-1", Type: scr.Person, Name: "Ivan Sergeyevich Kuznetsov", BirthDates: []scr.Date{{Year: 1971}}})
		srv.set(openSanctionsFile(t, next))
		res, err = acts.RefreshList(ctx, scrwf.RefreshListInput{Source: src, At: at.Add(2 * time.Hour)})
		if err != nil || !res.Changed || res.Version != 2 || res.Added != 1 || res.Updated != 1 || res.Removed != 1 {
			t.Fatalf("changed content = %+v, %v; want version 2 with +1 ~1 -1", res, err)
		}

		for name, body := range map[string][]byte{
			"malformed": []byte("id,schema,name\n\"unterminated,Person,x\n"),
			"truncated": openSanctionsFile(t, next[:40]),
			"empty":     {},
		} {
			srv.set(body)
			_, err := acts.RefreshList(ctx, scrwf.RefreshListInput{Source: src, At: at.Add(3 * time.Hour)})
			var appErr *temporal.ApplicationError
			if !errors.As(err, &appErr) || appErr.Type() != scrwf.ErrTypeMalformedList || !appErr.NonRetryable() {
				t.Errorf("%s file: error %v, want a non-retryable %s", name, err, scrwf.ErrTypeMalformedList)
			}
		}
		l, err := st.Screening.SourcedList(ctx, "os-test")
		if err != nil || l.Version != 2 || l.EntityCount != 200 {
			t.Fatalf("list after failed refreshes = %+v, %v; want version 2 in service", l, err)
		}
		// Each stored version's screening.list_updated was written with it, once per organisation;
		// the unchanged and the failed refreshes wrote none.
		var n int64
		if err := st.DB.Model(&store.Event{}).Where("name = ?", "screening.list_updated").Count(&n).Error; err != nil || n != 4 {
			t.Errorf("%d screening.list_updated events stored, want 2 versions × 2 organisations: %v", n, err)
		}
	})
}

// TestRefreshScheduleRescreensMonitoredCustomers: the refresh workflow stores a changed list and
// its rescreen (batches of 2, continuing as new) screens every monitored customer against the
// delta only: the customer matching an added entity gets a monitoring screening and one alert;
// a replayed rescreen raises nothing twice; after a reviewer marks the hit a false positive, the
// next version (entity unchanged) raises nothing, and a changed record raises again.
func TestRefreshScheduleRescreensMonitoredCustomers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		org, err := st.Orgs.Create(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		customer := func(id, name, birth string, monitoring bool) {
			c := &store.Customer{ID: id, OrgID: org.ID, Type: "person", FullName: name, BirthDate: birth, Monitoring: monitoring,
				Status: "active", CreatedAt: now, UpdatedAt: now}
			if err := st.Customers.Create(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		customer("cus_a", "Ivan Kuznetsov", "1971-05-06", true)
		customer("cus_b", "Maria Garcia Lopez", "", true)
		customer("cus_c", "Chen Wei", "", true)
		customer("cus_d", "Petra Novak", "", true)
		customer("cus_e", "Ivan Kuznetsov", "1971-05-06", false) // not monitored
		// An organisation without the screening product: its customers are not monitored.
		fraudOnly, err := st.Orgs.Create(ctx, "fraud only")
		if err != nil {
			t.Fatal(err)
		}
		caps, _ := auth.NewCapabilities([]string{auth.ProductFraud})
		if _, err := st.Orgs.SetCapabilities(ctx, fraudOnly.ID, caps); err != nil {
			t.Fatal(err)
		}
		if err := st.Customers.Create(ctx, &store.Customer{ID: "cus_f", OrgID: fraudOnly.ID, Type: "person", FullName: "Ivan Kuznetsov",
			Monitoring: true, Status: "active", CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}

		base := []scr.Entity{{ID: "e1", Type: scr.Person, Name: "Viktor Bout", BirthDates: []scr.Date{{Year: 1967}}}}
		srv := &listServer{body: openSanctionsFile(t, base)}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		src := "watch|opensanctions|" + hs.URL
		refresh := func() {
			t.Helper()
			e, _ := env(st)
			e.ExecuteWorkflow(scrwf.RefreshName, scrwf.RefreshInput{Sources: []string{src}, Batch: 2})
			if !e.IsWorkflowCompleted() || e.GetWorkflowError() != nil {
				t.Fatalf("refresh: completed %v, error %v", e.IsWorkflowCompleted(), e.GetWorkflowError())
			}
		}
		rescreen := func(version int) {
			t.Helper()
			l, err := st.Screening.SourcedList(ctx, "watch")
			if err != nil {
				t.Fatal(err)
			}
			e, _ := env(st)
			e.ExecuteWorkflow(scrwf.RescreenName, scrwf.RescreenInput{ListID: l.ID, ListOrgID: l.OrgID, Version: version, Batch: 2})
			if !e.IsWorkflowCompleted() || e.GetWorkflowError() != nil {
				t.Fatalf("rescreen v%d: completed %v, error %v", version, e.IsWorkflowCompleted(), e.GetWorkflowError())
			}
		}
		alerts := func() []store.Alert {
			var out []store.Alert
			if err := st.DB.Where("org_id = ? AND source = ?", org.ID, string(cases.SourceScreening)).Order("created_at, id").Find(&out).Error; err != nil {
				t.Fatal(err)
			}
			return out
		}
		refresh() // version 1
		rescreen(1)
		if a := alerts(); len(a) != 0 {
			t.Fatalf("alerts after v1 = %+v, want none (no customer matches)", a)
		}

		srv.set(openSanctionsFile(t, append(base, scr.Entity{ID: "e2", Type: scr.Person, Name: "Ivan Sergeyevich Kuznetsov", BirthDates: []scr.Date{{Year: 1971}}})))
		refresh() // version 2: +e2
		rescreen(2)
		a := alerts()
		if len(a) != 1 || a[0].CustomerID != "cus_a" || a[0].Status != string(cases.AlertOpen) {
			t.Fatalf("alerts after v2 = %+v, want one open alert for cus_a", a)
		}
		var elsewhere int64
		if err := st.DB.Model(&store.Alert{}).Where("org_id = ?", fraudOnly.ID).Count(&elsewhere).Error; err != nil || elsewhere != 0 {
			t.Fatalf("alerts of an organisation without screening = %d, %v", elsewhere, err)
		}
		rescreen(2) // the same rescreen again (a retry, a reset): nothing twice
		if again := alerts(); len(again) != 1 {
			t.Fatalf("alerts after replaying the v2 rescreen = %d, want 1", len(again))
		}

		var rec store.ScreeningRecord
		if err := st.DB.Where("id = ?", a[0].SourceRef).Take(&rec).Error; err != nil {
			t.Fatal(err)
		}
		if rec.Trigger != scr.TriggerMonitoring || rec.Status != scr.StatusPotentialMatch || len(rec.Hits) != 1 || rec.Hits[0].EntityID != "e2" {
			t.Fatalf("monitoring screening = %+v", rec)
		}
		if _, err := st.Screening.ResolveHit(ctx, store.HitResolution{OrgID: org.ID, ScreeningID: rec.ID, HitID: rec.Hits[0].ID,
			To: scr.FalsePositive, UserID: "usr_reviewer", Comment: "another person", At: now}); err != nil {
			t.Fatal(err)
		}
		if a := alerts(); a[0].Status != string(cases.AlertClosed) {
			t.Fatalf("alert after the false positive = %s, want closed", a[0].Status)
		}

		// e2 unchanged, e3 added: e2 is not in the delta and stays quiet.
		v3 := append(base, scr.Entity{ID: "e2", Type: scr.Person, Name: "Ivan Sergeyevich Kuznetsov", BirthDates: []scr.Date{{Year: 1971}}},
			scr.Entity{ID: "e3", Type: scr.Person, Name: "Someone Else Entirely"})
		srv.set(openSanctionsFile(t, v3))
		refresh()
		rescreen(3)
		if a := alerts(); len(a) != 1 {
			t.Fatalf("alerts after v3 = %d, want still 1", len(a))
		}
		// A customer change screens against the whole list: the suppressed hit stays suppressed.
		if err := st.Customers.Save(ctx, &store.Customer{ID: "cus_a", OrgID: org.ID, Type: "person", FullName: "Ivan Kuznetsov",
			BirthDate: "1971-05-06", Monitoring: true, Status: "active"}, "active"); err != nil {
			t.Fatal(err)
		}
		cu, _ := st.Customers.Get(ctx, org.ID, "cus_a")
		e, _ := env(st)
		e.ExecuteWorkflow(scrwf.CustomerRescreenName, scrwf.CustomerRescreenInput{OrgID: org.ID, CustomerID: "cus_a", ChangedAt: cu.UpdatedAt})
		if e.GetWorkflowError() != nil {
			t.Fatal(e.GetWorkflowError())
		}
		if a := alerts(); len(a) != 1 {
			t.Fatalf("alerts after the customer change = %d, want 1 (the false positive is suppressed)", len(a))
		}

		// The entity's record changes (a new alias): the suppression no longer holds.
		v4 := append(base, scr.Entity{ID: "e2", Type: scr.Person, Name: "Ivan Sergeyevich Kuznetsov", Aliases: []string{"Vanya Kuznetsov"},
			BirthDates: []scr.Date{{Year: 1971}}}, v3[2])
		srv.set(openSanctionsFile(t, v4))
		refresh()
		rescreen(4)
		if a := alerts(); len(a) != 2 || a[1].CustomerID != "cus_a" || a[1].Status != string(cases.AlertOpen) {
			t.Fatalf("alerts after e2 changed = %+v, want a new open alert for cus_a", a)
		}
	})
}

// TestRefreshFailsNamingTheBadSource: one source answering a malformed file and one
// unreachable do not stop the good one; the run fails naming both, without retrying the
// malformed one.
func TestRefreshFailsNamingTheBadSource(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		good := httptest.NewServer(&listServer{body: openSanctionsFile(t, fixtures.Generate(9, 20).Entities)})
		defer good.Close()
		bad := httptest.NewServer(&listServer{body: []byte("not,a\nlist\n")})
		defer bad.Close()
		e, _ := env(st)
		e.ExecuteWorkflow(scrwf.RefreshName, scrwf.RefreshInput{Sources: []string{
			"bad|opensanctions|" + bad.URL, "good|opensanctions|" + good.URL, "nowhere|un|/nonexistent/consolidated.xml"}})
		err := e.GetWorkflowError()
		if err == nil || !strings.Contains(err.Error(), "bad:") || !strings.Contains(err.Error(), "nowhere:") || strings.Contains(err.Error(), "good:") {
			t.Fatalf("refresh error = %v, want one naming bad and nowhere", err)
		}
		if l, err := st.Screening.SourcedList(context.Background(), "good"); err != nil || l.EntityCount != 20 {
			t.Errorf("good list = %+v, %v", l, err)
		}
		if _, err := st.Screening.SourcedList(context.Background(), "bad"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("bad list stored: %v", err)
		}
	})
}
