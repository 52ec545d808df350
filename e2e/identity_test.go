package e2e

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	temporalclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/documents/fixtures"
	it "github.com/svcplatform/svc/internal/identity/identitytest"
	"github.com/svcplatform/svc/store"
	idvwf "github.com/svcplatform/svc/workflows/identity"
)

// submitImages posts an attempt (multipart front and optional back) and returns the answer.
func submitImages(c client, verificationID string, front, back []byte) response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for name, data := range map[string][]byte{"front": front, "back": back} {
		if data == nil {
			continue
		}
		fw, err := w.CreateFormFile(name, name+".bin")
		if err != nil {
			c.t.Fatal(err)
		}
		_, _ = fw.Write(data)
	}
	_ = w.Close()
	req, err := http.NewRequest("POST", c.base+"/api/identity/verifications/"+verificationID+"/attempts", &buf)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.send(req)
}

// newVerification creates a verification and returns its id.
func newVerification(c client, claimed map[string]any, policy map[string]any) string {
	c.t.Helper()
	r := c.do("POST", "/api/identity/verifications", map[string]any{"claimed": claimed, "policy": policy, "customerId": "cus_e2e"})
	if r.Status != 201 {
		c.t.Fatalf("POST verification = %d %s", r.Status, r.Raw)
	}
	d := r.data(c.t)
	if d["status"] != "requires_input" {
		c.t.Fatalf("new verification %v", d)
	}
	return str(d["id"])
}

// verificationIn polls a verification until its status is one of want.
func verificationIn(t *testing.T, c client, id string, within time.Duration, want ...string) map[string]any {
	t.Helper()
	var d map[string]any
	eventually(t, within, "verification "+id+" to be "+str(want), func() bool {
		r := c.do("GET", "/api/identity/verifications/"+id, nil)
		if r.Status != 200 {
			t.Fatalf("GET verification = %d %s", r.Status, r.Raw)
		}
		d = r.data(t)
		for _, w := range want {
			if d["status"] == w {
				return true
			}
		}
		return false
	})
	return d
}

func reasonsOf(d map[string]any) []string {
	var out []string
	for _, r := range d["reasons"].([]any) {
		out = append(out, str(r))
	}
	return out
}

// identityEvents are the identity events of one verification the sink got, by name.
func identityEvents(s *eventSink, verificationID string) []orchEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []orchEvent
	for _, ev := range s.events {
		if ev.Data["verificationId"] == verificationID {
			out = append(out, ev)
		}
	}
	return out
}

// identityHeaders checks that an identity event came with the X-Identity- headers, each
// equal to its unified X-Service- twin (SPEC 6.1), on its first delivery attempt.
func identityHeaders(t *testing.T, ev orchEvent) {
	t.Helper()
	if ev.Header.Get("X-Identity-Event") != ev.Event || ev.Header.Get("X-Identity-Attempt") != "1" {
		t.Errorf("%s headers %v", ev.Event, ev.Header)
	}
	for _, h := range []string{"Event", "Delivery", "Signature", "Timestamp", "Attempt"} {
		if v := ev.Header.Get("X-Identity-" + h); v == "" || v != ev.Header.Get("X-Service-"+h) {
			t.Errorf("%s: X-Identity-%s %q, X-Service-%s %q", ev.Event, h, v, h, ev.Header.Get("X-Service-"+h))
		}
	}
}

// recordVerification waits for a verification's workflow to end and records its history in
// workflows/identity/testdata/verification_<name>.json when SVC_RECORD_HISTORIES is set, for
// TestVerificationReplay (workflows/identity) to replay.
func recordVerification(t *testing.T, c temporalclient.Client, id, name string) {
	t.Helper()
	if os.Getenv("SVC_RECORD_HISTORIES") == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatalf("verification workflow %s: %v", id, err)
	}
	recordHistoryAt(t, c, id, filepath.Join("..", "workflows", "identity", "testdata", "verification_"+name+".json"))
}

// TestIdentityEndToEnd verifies generated passports and KTPs through the real dev stack: the
// API stores the images, the verification's workflow reads them with the documents engine
// (tesseract, poppler) on the OCR queue, runs the checks and publishes identity.* events to a
// loopback receiver, with the X-Identity- headers beside X-Service-.
func TestIdentityEndToEnd(t *testing.T) {
	s := boot(t, t.TempDir(), bootOptions{})
	as := func(t *testing.T, key string) client { return client{t: t, base: s.BaseURL, key: key} }
	admin := as(t, s.Credentials.APIKey)
	sink := newEventSink(t)
	sink.subscribe(admin, "*")
	analyst := newPerson(admin, "analyst", "verifications:write", "verifications:view")
	reviewer := newPerson(admin, "reviewer", "verification-reviews:write", "verifications:view")
	budi := map[string]any{"fullName": "Santoso, Büdi", "birthDate": "1985-03-12", "documentNumber": "C4821937"}
	siti := map[string]any{"fullName": "Siti Rahayu", "birthDate": "1990-06-05", "nationality": "IDN"}
	both := map[string]any{"documentTypes": []string{"passport", "ktp"}, "minimumAge": 18, "maxAttempts": 2}
	const within = 3 * time.Minute

	cases := []struct {
		name    string
		claimed map[string]any
		policy  map[string]any
		files   []func(t *testing.T) []byte
		status  string
		reasons []string
		events  []string
		// record names the history recorded for the replay test (SVC_RECORD_HISTORIES).
		record string
	}{
		{"valid passport photo", budi, both, []func(t *testing.T) []byte{func(t *testing.T) []byte { return it.Photo(t, it.PassportLayout(t, it.Passport()), 5) }},
			"verified", []string{}, []string{"identity.attempt.completed", "identity.verification.verified"}, "verified"},
		{"valid KTP photo", siti, both, []func(t *testing.T) []byte{func(t *testing.T) []byte { return it.Photo(t, it.KTP().Layout(), 7) }},
			"verified", []string{}, []string{"identity.attempt.completed", "identity.verification.verified"}, ""},
		{"under-age passport holder", map[string]any{"fullName": "Budi Santoso", "birthDate": "2010-01-15", "documentNumber": "C4821937"}, both,
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, it.YoungPassport())) }},
			"rejected", []string{"under_minimum_age"}, []string{"identity.attempt.completed", "identity.verification.rejected"}, "rejected_under_age"},
		{"expired passport, then a valid one", budi, both, []func(t *testing.T) []byte{
			func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, it.ExpiredPassport())) },
			func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, it.Passport())) }},
			"verified", []string{}, []string{"identity.attempt.completed", "identity.verification.resubmission_requested", "identity.attempt.completed", "identity.verification.verified"}, "resubmitted_verified"},
		{"expired passport twice: the attempts cap rejects", budi, both, []func(t *testing.T) []byte{
			func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, it.ExpiredPassport())) },
			func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, it.ExpiredPassport())) }},
			"rejected", []string{"document_expired"}, []string{"identity.attempt.completed", "identity.verification.resubmission_requested", "identity.attempt.completed", "identity.verification.rejected"}, ""},
		{"a passport where only KTPs are allowed", budi, map[string]any{"documentTypes": []string{"ktp"}},
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, it.Passport())) }},
			"resubmission_requested", []string{"document_type_not_allowed"}, nil, ""},
		{"under-age KTP holder", map[string]any{"fullName": "Siti Rahayu", "birthDate": "2011-02-03"}, both,
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.TextPDF(t, it.YoungKTP().Layout()) }},
			"rejected", []string{"under_minimum_age"}, []string{"identity.attempt.completed", "identity.verification.rejected"}, ""},
		{"wrong name on the last attempt", map[string]any{"fullName": "Rina Marlina", "birthDate": "1990-06-05"},
			map[string]any{"documentTypes": []string{"ktp"}, "maxAttempts": 1},
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.TextPDF(t, it.KTP().Layout()) }},
			"rejected", []string{"name_mismatch"}, []string{"identity.attempt.completed", "identity.verification.rejected"}, ""},
		{"bad MRZ check digit", budi, both,
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, it.Passport(), it.BadCheckDigit)) }},
			"resubmission_requested", []string{"mrz_check_digit_failed"}, []string{"identity.attempt.completed", "identity.verification.resubmission_requested"}, ""},
		{"another person's passport", budi, both,
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, it.OtherPassport())) }},
			"resubmission_requested", []string{"name_mismatch", "birth_date_mismatch", "document_number_mismatch"}, nil, ""},
		{"another person's KTP", siti, both,
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.TextPDF(t, it.OtherKTP().Layout()) }},
			"resubmission_requested", []string{"name_mismatch", "birth_date_mismatch"}, nil, ""},
		{"expired KTP", siti, both,
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.TextPDF(t, it.ExpiredKTP().Layout()) }},
			"resubmission_requested", []string{"document_expired"}, nil, ""},
		{"unreadable passport photo", budi, both,
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.UnreadablePhoto(t, it.PassportLayout(t, it.Passport())) }},
			"resubmission_requested", []string{"document_unreadable"}, nil, ""},
		{"unreadable KTP photo on the last attempt", siti, map[string]any{"documentTypes": []string{"ktp"}, "maxAttempts": 1},
			[]func(t *testing.T) []byte{func(t *testing.T) []byte { return it.UnreadablePhoto(t, it.KTP().Layout()) }},
			"rejected", []string{"document_unreadable"}, []string{"identity.attempt.completed", "identity.verification.rejected"}, ""},
	}
	t.Run("decisions", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				c := as(t, analyst.key)
				id := newVerification(c, tc.claimed, tc.policy)
				var d map[string]any
				for i, file := range tc.files {
					r := submitImages(c, id, file(t), nil)
					if r.Status != 202 || r.data(t)["number"] != float64(i+1) {
						t.Fatalf("attempt %d = %d %s", i+1, r.Status, r.Raw)
					}
					if i < len(tc.files)-1 {
						verificationIn(t, c, id, within, "resubmission_requested", "verified", "rejected", "review")
					}
				}
				d = verificationIn(t, c, id, within, "verified", "rejected", "review", "resubmission_requested")
				if d["status"] != tc.status || !reflect.DeepEqual(append([]string{}, reasonsOf(d)...), append([]string{}, tc.reasons...)) {
					t.Fatalf("verification %s %v, want %s %v\n%v", d["status"], reasonsOf(d), tc.status, tc.reasons, d["attempts"])
				}
				atts := d["attempts"].([]any)
				last := atts[len(atts)-1].(map[string]any)
				if last["status"] != "completed" || last["outcome"] != tc.status || len(last["checks"].([]any)) != 11 || last["document"] == nil {
					t.Errorf("last attempt %v", last)
				}
				if tc.events != nil {
					eventually(t, 30*time.Second, "events of "+id, func() bool { return len(identityEvents(sink, id)) >= len(tc.events) })
					var names []string
					for _, ev := range identityEvents(sink, id) {
						names = append(names, ev.Event)
						identityHeaders(t, ev)
					}
					if !reflect.DeepEqual(names, tc.events) {
						t.Errorf("events %v, want %v", names, tc.events)
					}
				}
				if tc.status == "verified" || tc.status == "rejected" {
					if r := submitImages(c, id, tc.files[0](t), nil); r.Status != 409 || r.Body["error"] != "state conflict: cannot transition "+tc.status+" → processing" {
						t.Errorf("attempt after %s = %d %s", tc.status, r.Status, r.Raw)
					}
				}
				if tc.record != "" {
					recordVerification(t, s.App.Temporal, id, tc.record)
				}
			})
		}
	})

	t.Run("a reviewer decides a doubtful verification", func(t *testing.T) {
		c := as(t, analyst.key)
		id := newVerification(c, budi, both)
		forged := it.TextPDF(t, it.PassportLayout(t, it.Passport(), it.PrintedName("BUDI HARTONO")))
		if r := submitImages(c, id, forged, nil); r.Status != 202 {
			t.Fatalf("attempt = %d %s", r.Status, r.Raw)
		}
		d := verificationIn(t, c, id, within, "review", "verified", "rejected", "resubmission_requested")
		if d["status"] != "review" || !reflect.DeepEqual(reasonsOf(d), []string{"mrz_visual_mismatch"}) {
			t.Fatalf("verification %v", d)
		}
		if r := submitImages(c, id, forged, nil); r.Status != 409 || r.Body["error"] != "state conflict: cannot transition review → processing" {
			t.Errorf("attempt while in review = %d %s", r.Status, r.Raw)
		}
		k := admin.do("POST", "/api/api-keys", map[string]any{"name": "robot", "scopes": []string{"verification-reviews:write"}})
		if r := as(t, str(k.data(t)["key"])).do("POST", "/api/identity/verifications/"+id+"/review", map[string]any{"decision": "approve"}); r.Status != 422 || r.Body["error"] != "api_key_not_bound_to_user" {
			t.Errorf("review by an unbound key = %d %s", r.Status, r.Raw)
		}
		rv := as(t, reviewer.key)
		if r := rv.do("POST", "/api/identity/verifications/"+id+"/review", map[string]any{"decision": "maybe"}); r.Status != 400 {
			t.Errorf("unknown decision = %d %s", r.Status, r.Raw)
		}
		r := rv.do("POST", "/api/identity/verifications/"+id+"/review", map[string]any{"decision": "approve", "comment": "printed name is a typo"})
		if r.Status != 200 || r.data(t)["status"] != "verified" || r.data(t)["reviewedBy"] != reviewer.userID || r.data(t)["reviewComment"] != "printed name is a typo" {
			t.Fatalf("approve = %d %s", r.Status, r.Raw)
		}
		if r := rv.do("POST", "/api/identity/verifications/"+id+"/review", map[string]any{"decision": "reject"}); r.Status != 409 ||
			r.Body["error"] != "state conflict: cannot transition verified → rejected" {
			t.Errorf("second decision = %d %s", r.Status, r.Raw)
		}
		ev := func() *orchEvent {
			for _, e := range identityEvents(sink, id) {
				if e.Event == "identity.verification.verified" {
					return &e
				}
			}
			return nil
		}
		eventually(t, 30*time.Second, "identity.verification.verified", func() bool { return ev() != nil })
		wantKeys(t, *ev(), "verificationId", "status", "reasons", "attemptId", "customerId", "reference", "externalId", "decision")
		if ev().Data["decision"] != "approve" || ev().Data["customerId"] != "cus_e2e" {
			t.Errorf("verified event %v", ev().Data)
		}
		identityHeaders(t, *ev())
		recordVerification(t, s.App.Temporal, id, "review_approved")
		// The audit log has the reviewer's decision with the user and the key.
		a := admin.do("GET", "/api/audit-logs?limit=100", nil)
		found := false
		for _, row := range a.Body["rows"].([]any) {
			m := row.(map[string]any)
			if m["resourceId"] == id && m["userId"] == reviewer.userID && m["apiKeyId"] == reviewer.keyID {
				found = true
			}
		}
		if !found {
			t.Errorf("no audit row of the review in %s", a.Raw)
		}
	})

	t.Run("expires by its durable timer", func(t *testing.T) {
		c := as(t, analyst.key)
		id := newVerification(c, siti, map[string]any{"documentTypes": []string{"ktp"}, "timeToCompleteSeconds": 60})
		d := verificationIn(t, c, id, 3*time.Minute, "expired")
		if d["completedAt"] == nil {
			t.Errorf("expired without completedAt: %v", d)
		}
		eventually(t, 30*time.Second, "identity.verification.expired", func() bool {
			evs := identityEvents(sink, id)
			return len(evs) == 1 && evs[0].Event == "identity.verification.expired"
		})
		if r := submitImages(c, id, it.TextPDF(t, it.KTP().Layout()), nil); r.Status != 409 {
			t.Errorf("attempt on an expired verification = %d %s", r.Status, r.Raw)
		}
		recordVerification(t, s.App.Temporal, id, "expired")
	})

	t.Run("bad input", func(t *testing.T) {
		c := as(t, analyst.key)
		r := c.do("POST", "/api/identity/verifications", map[string]any{"claimed": map[string]any{"fullName": "", "birthDate": "1990-13-01"},
			"policy": map[string]any{"documentTypes": []string{"npwp"}}})
		fe, _ := r.Body["details"].(map[string]any)["fieldErrors"].(map[string]any)
		if r.Status != 400 || fe["claimed.fullName"] == nil || fe["claimed.birthDate"] == nil || fe["policy.documentTypes[0]"] == nil {
			t.Errorf("invalid verification = %d %s", r.Status, r.Raw)
		}
		id := newVerification(c, siti, both)
		if r := submitImages(c, id, fixtures.NotADocument(t), nil); r.Status != 415 {
			t.Errorf("not an image = %d %s", r.Status, r.Raw)
		}
		if r := submitImages(c, id, nil, it.TextPDF(t, it.KTP().Layout())); r.Status != 400 {
			t.Errorf("no front = %d %s", r.Status, r.Raw)
		}
		again := c.do("POST", "/api/identity/verifications", map[string]any{"claimed": siti, "policy": both, "externalId": "idv-e2e-1"})
		replay := c.do("POST", "/api/identity/verifications", map[string]any{"claimed": siti, "policy": both, "externalId": "idv-e2e-1"})
		if again.Status != 201 || replay.Body["idempotent"] != true || replay.data(t)["id"] != again.data(t)["id"] {
			t.Errorf("externalId replay = %d %s", replay.Status, replay.Raw)
		}
	})

	t.Run("the retention schedule runs the purge", func(t *testing.T) {
		ctx := context.Background()
		h := s.App.Temporal.ScheduleClient().GetHandle(ctx, idvwf.RetentionScheduleID)
		desc, err := h.Describe(ctx)
		if err != nil {
			t.Fatalf("no identity retention schedule: %v", err)
		}
		if a, ok := desc.Schedule.Action.(*temporalclient.ScheduleWorkflowAction); !ok || a.Workflow != idvwf.RetentionName {
			t.Errorf("schedule action %#v", desc.Schedule.Action)
		}
		if err := h.Trigger(ctx, temporalclient.ScheduleTriggerOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, time.Minute, "a retention run", func() bool {
			d, err := h.Describe(ctx)
			return err == nil && len(d.Info.RecentActions) > 0
		})
	})

	t.Run("another organisation sees nothing", func(t *testing.T) {
		c := as(t, analyst.key)
		id := newVerification(c, siti, both)
		res, err := s.App.Store.Orgs.Bootstrap(context.Background(), store.BootstrapInput{OrgName: "intruder", DefaultUser: true,
			Environment: s.App.Config.Environment, Scopes: []string{"write"}})
		if err != nil {
			t.Fatal(err)
		}
		other := as(t, res.Secret)
		if r := other.do("GET", "/api/identity/verifications/"+id, nil); r.Status != 404 {
			t.Errorf("GET = %d", r.Status)
		}
		if r := submitImages(other, id, it.TextPDF(t, it.KTP().Layout()), nil); r.Status != 404 {
			t.Errorf("attempt = %d", r.Status)
		}
		if r := other.do("POST", "/api/identity/verifications/"+id+"/review", map[string]any{"decision": "approve"}); r.Status != 404 {
			t.Errorf("review = %d %s", r.Status, r.Raw)
		}
		if r := other.do("GET", "/api/identity/attempts", nil); r.Status != 200 || len(r.Body["rows"].([]any)) != 0 {
			t.Errorf("feed = %d %s", r.Status, r.Raw)
		}
		if r := other.do("GET", "/api/identity/verifications", nil); r.Status != 200 || r.Body["total"] != 0.0 {
			t.Errorf("list = %d %s", r.Status, r.Raw)
		}
	})

	t.Run("the attempts feed neither skips nor repeats while attempts are created", func(t *testing.T) {
		c := as(t, analyst.key)
		pdf := it.TextPDF(t, it.KTP().Layout())
		submit := func() string {
			id := newVerification(c, map[string]any{"fullName": "Siti Rahayu", "birthDate": "1990-06-05"}, map[string]any{"documentTypes": []string{"ktp"}})
			r := submitImages(c, id, pdf, nil)
			if r.Status != 202 {
				t.Errorf("attempt = %d %s", r.Status, r.Raw)
			}
			return str(r.data(t)["id"])
		}
		before := map[string]bool{}
		feed := func(cursor string) map[string]any {
			path := "/api/identity/attempts?limit=3"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := c.do("GET", path, nil)
			if r.Status != 200 {
				t.Fatalf("feed = %d %s", r.Status, r.Raw)
			}
			return r.Body
		}
		// Every attempt that exists when paging starts must be seen exactly once.
		for cursor := ""; ; {
			b := feed(cursor)
			for _, row := range b["rows"].([]any) {
				before[str(row.(map[string]any)["id"])] = true
			}
			if b["nextCursor"] == nil {
				break
			}
			cursor = str(b["nextCursor"])
		}
		for range 4 {
			before[submit()] = true
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 6 {
				submit()
			}
		}()
		seen := map[string]int{}
		for cursor := ""; ; {
			b := feed(cursor)
			for _, row := range b["rows"].([]any) {
				seen[str(row.(map[string]any)["id"])]++
			}
			if b["nextCursor"] == nil {
				break
			}
			cursor = str(b["nextCursor"])
			time.Sleep(50 * time.Millisecond)
		}
		wg.Wait()
		for id, n := range seen {
			if n != 1 {
				t.Errorf("attempt %s seen %d times", id, n)
			}
		}
		for id := range before {
			if seen[id] != 1 {
				t.Errorf("attempt %s existed before paging and was skipped", id)
			}
		}
	})
}
