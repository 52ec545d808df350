package events

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ids"
)

var testID = DeriveID(time.Unix(1767322800, 0), "test")

// specCatalog is SPEC 6.4 and 6.5 written out by hand, plus the bank statement product's
// analysis events (SPEC 6.1 names the product, not its catalog): each event with its data keys.
var specCatalog = map[string]struct {
	product Product
	keys    []string
}{
	"workflow.execution.started":      {Orchestration, []string{"executionId", "workflowId", "workflowSlug", "inputs", "externalId"}},
	"workflow.execution.completed":    {Orchestration, []string{"executionId", "workflowSlug", "status", "output", "completedAt", "workflowId", "workflowVersion", "externalId"}},
	"workflow.execution.failed":       {Orchestration, []string{"executionId", "workflowSlug", "failedStepId", "errorMessage"}},
	"workflow.execution.cancelled":    {Orchestration, []string{"executionId", "workflowSlug", "reason", "actorUserId"}},
	"workflow.step.completed":         {Orchestration, []string{"executionId", "stepId", "nodeId", "output"}},
	"workflow.step.failed":            {Orchestration, []string{"executionId", "stepId", "nodeId", "errorMessage", "attempts"}},
	"workflow.human_approval_pending": {Orchestration, []string{"executionId", "workflowSlug", "stepId", "actionLabel", "assignTo", "data"}},
	"webhook.test":                    {Platform, []string{"source"}},
	"document.uploaded":               {Documents, []string{"documentId", "type", "filename", "sha256", "externalRef"}},
	"document.classified":             {Documents, []string{"documentId", "type", "classificationConfidence"}},
	"document.extracted":              {Documents, []string{"documentId", "extractionId", "type", "confidenceScore", "fields"}},
	"document.requires_review":        {Documents, []string{"documentId", "extractionId", "confidenceScore", "flags"}},
	"document.password_required":      {Documents, []string{"documentId", "errorMessage"}},
	"document.failed":                 {Documents, []string{"documentId", "errorMessage", "stage"}},
	"extraction.corrected":            {Documents, []string{"documentId", "extractionId", "actorUserId", "previousExtractionId"}},
	"template.matched":                {Documents, []string{"documentId", "templateId", "matchConfidence"}},
	// The identity product's events (its issue names them; SPEC leaves other products' events open).
	"identity.verification.verified":               {Identity, identityKeys},
	"identity.verification.rejected":               {Identity, identityKeys},
	"identity.verification.review":                 {Identity, identityKeys},
	"identity.verification.resubmission_requested": {Identity, identityKeys},
	"identity.verification.expired":                {Identity, identityKeys},
	"identity.attempt.completed":                   {Identity, []string{"attemptId", "verificationId", "number", "status", "outcome", "reasons", "checks", "customerId"}},
	"analysis.completed":                           {Statements, []string{"analysisId", "status", "version", "statements", "transactions", "reconciled", "riskScore", "externalRef"}},
	"analysis.requires_review":                     {Statements, []string{"analysisId", "status", "version", "statements", "transactions", "reconciled", "riskScore", "reasons", "externalRef"}},
	"analysis.failed":                              {Statements, []string{"analysisId", "errorMessage", "stage", "externalRef"}},
	"analysis.password_required":                   {Statements, []string{"analysisId", "errorMessage", "externalRef"}},
	"analysis.corrected":                           {Statements, []string{"analysisId", "version", "previousVersion", "actorUserId"}},
	// The fraud product's events (docs/decisions.md: <product>.<resource>.<what happened>).
	"fraud.decision.review":    {Fraud, []string{"decisionId", "outcome", "score", "reasonCodes", "customerId", "transactionId", "externalId"}},
	"fraud.decision.declined":  {Fraud, []string{"decisionId", "outcome", "score", "reasonCodes", "customerId", "transactionId", "externalId"}},
	"fraud.ruleset.published":  {Fraud, []string{"ruleSetId", "version", "appliesTo", "publishedBy"}},
	"fraud.backtest.completed": {Fraud, []string{"backtestId", "ruleSetId", "version", "evaluated", "changed"}},
	// Beyond SPEC 6: the AML screening product's events.
	"screening.completed":    {Screening, []string{"screeningId", "customerId", "status", "hitCount"}},
	"screening.alert_raised": {Screening, []string{"alertId", "customerId", "screeningId", "entityId", "score"}},
	"screening.list_updated": {Screening, []string{"listId", "version", "added", "changed", "removed"}},
	// Beyond SPEC 6: the AI automation product's events.
	"automation.completed":       {Automation, []string{"automationId", "kind", "subjectId", "resultStatus", "model", "totalTokens", "externalId"}},
	"automation.failed":          {Automation, []string{"automationId", "kind", "subjectId", "errorMessage", "externalId"}},
	"automation.budget_exceeded": {Automation, []string{"day", "usedTokens", "dailyTokens"}},
	// The cases product's events (SPEC 3.4).
	"case.created":     {Cases, []string{"caseId", "title", "customerId", "priority", "alertIds", "createdBy"}},
	"case.assigned":    {Cases, []string{"caseId", "assigneeId", "assignedBy", "status"}},
	"case.escalated":   {Cases, []string{"caseId", "escalatedBy", "reason"}},
	"case.overdue":     {Cases, []string{"caseId", "dueAt", "status"}},
	"case.closed":      {Cases, []string{"caseId", "outcome", "rationale", "proposedBy", "approvedBy"}},
	"sar.submitted":    {Cases, []string{"filingId", "caseId", "filedById", "submittedById"}},
	"sar.acknowledged": {Cases, []string{"filingId", "caseId", "filedById", "submittedById", "reference"}},
	"sar.rejected":     {Cases, []string{"filingId", "caseId", "filedById", "submittedById", "reason"}},
}

var identityKeys = []string{"verificationId", "status", "reasons", "attemptId", "customerId", "reference", "externalId", "decision"}

func TestCatalogMatchesSpec(t *testing.T) {
	names := Names()
	if len(names) != len(specCatalog) {
		t.Fatalf("catalog has %d events, spec %d: %v", len(names), len(specCatalog), names)
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("Names() not sorted: %v", names)
	}
	for name, want := range specCatalog {
		d, ok := Lookup(name)
		if !ok {
			t.Errorf("Lookup(%q) missing", name)
			continue
		}
		if d.Name != name || d.Product != want.product {
			t.Errorf("%s: got name %q product %q, want product %q", name, d.Name, d.Product, want.product)
		}
		var got []string
		for _, k := range d.Keys {
			got = append(got, k.Name)
		}
		if !reflect.DeepEqual(got, want.keys) {
			t.Errorf("%s keys = %v, want %v", name, got, want.keys)
		}
		if d.OffByDefault != (name == WorkflowStepCompleted) {
			t.Errorf("%s OffByDefault = %v", name, d.OffByDefault)
		}
	}
	if _, ok := Lookup("workflow.nope"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
}

func TestLookupReturnsCopy(t *testing.T) {
	d, _ := Lookup(DocumentFailed)
	d.Keys[0].Name = "changed"
	again, _ := Lookup(DocumentFailed)
	if again.Keys[0].Name != "documentId" {
		t.Fatal("Lookup exposes the catalog's key slice")
	}
}

func TestHeaderPrefixes(t *testing.T) {
	tests := []struct {
		product Product
		want    []string
	}{
		{Orchestration, []string{"X-Orch-"}},
		{Documents, []string{"X-DocInt-"}},
		{Identity, []string{"X-Identity-"}},
		{Statements, []string{"X-BankStatement-"}},
		{Platform, []string{"X-Orch-", "X-DocInt-", "X-Identity-", "X-BankStatement-"}},
		{Product("other"), nil},
	}
	for _, tt := range tests {
		if got := tt.product.HeaderPrefixes(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s.HeaderPrefixes() = %v, want %v", tt.product, got, tt.want)
		}
	}
}

func TestWants(t *testing.T) {
	tests := []struct {
		name       string
		subscribed []string
		event      string
		want       bool
	}{
		{"named", []string{DocumentExtracted}, DocumentExtracted, true},
		{"not named", []string{DocumentExtracted}, DocumentFailed, false},
		{"wildcard", []string{All}, DocumentFailed, true},
		{"wildcard skips off-by-default", []string{All}, WorkflowStepCompleted, false},
		{"off-by-default when named", []string{All, WorkflowStepCompleted}, WorkflowStepCompleted, true},
		{"unknown event", []string{All, "x.y"}, "x.y", false},
		{"empty subscription", nil, DocumentFailed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Wants(tt.subscribed, tt.event); got != tt.want {
				t.Errorf("Wants(%v, %q) = %v, want %v", tt.subscribed, tt.event, got, tt.want)
			}
		})
	}
	if !Subscribable(All) || !Subscribable(WebhookTest) || Subscribable("document.*") || Subscribable("") {
		t.Error("Subscribable disagrees with the catalog")
	}
}

func TestDeriveID(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	a := DeriveID(at, "exe_01", "step-3", WorkflowStepCompleted)
	if !ids.Valid(ids.Event, a) {
		t.Fatalf("DeriveID = %q, not a valid evt_ id", a)
	}
	if b := DeriveID(at, "exe_01", "step-3", WorkflowStepCompleted); a != b {
		t.Errorf("same seed gave %q and %q", a, b)
	}
	if b := DeriveID(at, "exe_01", "step-4", WorkflowStepCompleted); a == b {
		t.Error("different seeds gave the same id")
	}
	if DeriveID(at, "ab", "c") == DeriveID(at, "a", "bc") {
		t.Error("part boundaries are not part of the seed")
	}
	if later := DeriveID(at.Add(time.Second), "exe_01", "step-3", WorkflowStepCompleted); later <= a {
		t.Errorf("ids do not sort by time: %q then %q", a, later)
	}
	// Pinned value: the derivation is a contract (stored events keep their ids across releases).
	if got, want := DeriveID(at, "exe_01HZY", "publish"), "evt_01kdyak3se2yd34p9f1n9v8dxh"; got != want {
		t.Errorf("DeriveID changed: %q, want %q", got, want)
	}
}

func validData() map[string]any {
	return map[string]any{
		"documentId": "doc_1", "extractionId": "ext_1", "type": "npwp", "confidenceScore": 0.93,
		"fields": map[string]any{"npwp_number": "01.234", "name": "A", "address": "B", "registered_at": "2020-01-01"},
	}
}

func TestNewEnvelopeJSON(t *testing.T) {
	at := time.Date(2026, 1, 2, 10, 4, 5, 678_900_000, time.FixedZone("WIB", 7*3600))
	env, err := NewEnvelope(testID, DocumentExtracted, "org_1", at, validData())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + testID + `","event":"document.extracted","occurredAt":"2026-01-02T03:04:05.678Z","orgId":"org_1",` +
		`"data":{"confidenceScore":0.93,"documentId":"doc_1","extractionId":"ext_1",` +
		`"fields":{"address":"B","name":"A","npwp_number":"01.234","registered_at":"2020-01-01"},"type":"npwp"}}`
	if string(b) != want {
		t.Errorf("JSON =\n%s\nwant\n%s", b, want)
	}
	var back Envelope
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != env.ID || back.Event != env.Event || back.OrgID != env.OrgID || !back.OccurredAt.Equal(env.OccurredAt) ||
		string(back.Data) != string(env.Data) {
		t.Errorf("round trip: %+v != %+v", back, env)
	}
	if !back.OccurredAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)) {
		t.Errorf("occurredAt not truncated to ms in UTC: %v", back.OccurredAt)
	}
}

func TestNewEnvelopeRejects(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	with := func(change func(m map[string]any)) map[string]any {
		m := validData()
		change(m)
		return m
	}
	tests := []struct {
		name, id, event, org string
		at                   time.Time
		data                 any
		wantMsg              string
	}{
		{"unknown event", testID, "document.nope", "org_1", at, validData(), `unknown event name "document.nope"`},
		{"bad id", "exe_01kdysrqty0000000000000000", DocumentExtracted, "org_1", at, validData(), "not an evt_ id"},
		{"short id", "evt_1", DocumentExtracted, "org_1", at, validData(), "not an evt_ id"},
		{"bad org", testID, DocumentExtracted, "1", at, validData(), "orgId"},
		{"zero time", testID, DocumentExtracted, "org_1", time.Time{}, validData(), "occurredAt"},
		{"missing key", testID, DocumentExtracted, "org_1", at, with(func(m map[string]any) { delete(m, "fields") }), `missing key "fields"`},
		{"unknown key", testID, DocumentExtracted, "org_1", at, with(func(m map[string]any) { m["extra"] = 1 }), `unknown key "extra"`},
		{"wrong kind", testID, DocumentExtracted, "org_1", at, with(func(m map[string]any) { m["confidenceScore"] = "high" }), `"confidenceScore" must be a number`},
		{"null not allowed", testID, DocumentExtracted, "org_1", at, with(func(m map[string]any) { m["documentId"] = nil }), `"documentId" must not be null`},
		{"not an object", testID, DocumentExtracted, "org_1", at, []int{1}, "must be a JSON object"},
		{"nil data", testID, DocumentExtracted, "org_1", at, nil, "must be a JSON object"},
		{"unmarshalable", testID, DocumentExtracted, "org_1", at, map[string]any{"f": func() {}}, "data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewEnvelope(tt.id, tt.event, tt.org, tt.at, tt.data)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestCheckKinds(t *testing.T) {
	d, _ := Lookup(WorkflowExecutionCompleted)
	base := `"executionId":"exe_1","workflowSlug":"s","status":"succeeded","output":null,"completedAt":"2026-01-02T03:04:05.000Z","workflowId":"wkf_1","externalId":null`
	tests := []struct {
		version string
		ok      bool
	}{{"3", true}, {"3.5", false}, {`"3"`, false}, {"null", false}, {"-1", true}}
	for _, tt := range tests {
		err := d.Check([]byte(`{` + base + `,"workflowVersion":` + tt.version + `}`))
		if (err == nil) != tt.ok {
			t.Errorf("workflowVersion %s: err = %v, want ok=%v", tt.version, err, tt.ok)
		}
	}
}

func TestEveryEventHasAValidExample(t *testing.T) {
	sample := map[Kind]any{Any: []any{"x"}, String: "s", Number: 0.5, Integer: 2, Object: map[string]any{}, Array: []any{}, Bool: true}
	for _, name := range Names() {
		d, _ := Lookup(name)
		data := map[string]any{}
		for _, k := range d.Keys {
			data[k.Name] = sample[k.Kind]
		}
		if _, err := NewEnvelope(DeriveID(time.Unix(0, 0), name), name, "org_1", time.Unix(0, 0), data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzEnvelopeUnmarshal(f *testing.F) {
	f.Add([]byte(`{"id":"evt_1","event":"webhook.test","occurredAt":"2026-01-02T03:04:05.678Z","orgId":"org_1","data":{"source":"test"}}`))
	f.Add([]byte(`{"occurredAt":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var e Envelope
		if err := json.Unmarshal(b, &e); err != nil {
			return
		}
		if _, err := json.Marshal(e); err != nil {
			t.Fatalf("marshal after successful unmarshal: %v", err)
		}
	})
}
