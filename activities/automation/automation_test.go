package automation

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/automation/aitest"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/workflows"
)

// eventLog is a Publisher that keeps events by id, as the real one writes them once.
type eventLog struct {
	mu   sync.Mutex
	byID map[string]workflows.PublishEventInput
}

func (l *eventLog) PublishEvent(_ context.Context, in workflows.PublishEventInput) (workflows.PublishEventResult, error) {
	if _, err := events.NewEnvelope(in.EventID, in.Event, in.OrgID, in.OccurredAt, in.Data); err != nil {
		return workflows.PublishEventResult{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byID == nil {
		l.byID = map[string]workflows.PublishEventInput{}
	}
	l.byID[in.EventID] = in
	return workflows.PublishEventResult{EventID: in.EventID}, nil
}

func (l *eventLog) named(name string) []workflows.PublishEventInput {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []workflows.PublishEventInput
	for _, e := range l.byID {
		if e.Event == name {
			out = append(out, e)
		}
	}
	return out
}

// newActivities wires the activities to a fake provider scripted with replies and a real store.
func newActivities(t *testing.T, s *store.Store, daily int64, policy automation.AuditPolicy, replies ...aitest.Reply) (*Activities, *aitest.Server, *eventLog, *prometheus.Registry) {
	t.Helper()
	srv := aitest.New(replies...)
	t.Cleanup(srv.Close)
	m, err := automation.NewModel(automation.ProviderConfig{BaseURL: srv.BaseURL(), Model: "test-model", APIKey: "sk-provider", AllowCIDRs: []string{"127.0.0.0/8"}})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	log := &eventLog{}
	return &Activities{
		Runner:    &automation.Runner{Model: m, Budget: automation.Budget{DailyTokens: daily, Ledger: s.Automation}, Observe: NewMetrics(reg).Observe},
		Store:     s,
		Publisher: log,
		Audit:     policy,
	}, srv, log, reg
}

// Two organisations.
var orgA, orgB = ids.New(ids.Organization), ids.New(ids.Organization)

// testPrompt carries an API key, which must never reach the model.
var testPrompt = automation.Prompt{Prompt: "Assess with key svc_sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", Schema: []byte(`{"type":"object","required":["risk"]}`)}

// step runs the model step of step stp_01 of org as its first attempt.
func step(a *Activities, org string) (automation.Outcome, error) {
	return a.Step(context.Background(), org, store.AIExchange{ID: "stp_01:1", OrgID: org, ExecutionID: "exe_01", StepID: "stp_01"}, testPrompt)
}

func TestStep(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, srv, _, reg := newActivities(t, s, 0, automation.AuditKeep, aitest.Reply{Content: `{"risk":"low"}`, PromptTokens: 20, CompletionTokens: 4})
		res, err := step(a, orgA)
		if err != nil {
			t.Fatal(err)
		}
		if res.Model != "test-model" || res.Usage.TotalTokens != 24 || res.Attempts != 1 {
			t.Fatalf("result = %+v", res)
		}
		if ans, _ := res.Answer.(map[string]any); ans["risk"] != "low" {
			t.Fatalf("answer = %v", res.Answer)
		}
		if strings.Contains(srv.Received(), "svc_sk_live_") {
			t.Fatal("the API key reached the model")
		}
		xs, err := s.Automation.Exchanges(ctx, orgA, "stp_01")
		if err != nil || len(xs) != 1 {
			t.Fatalf("exchanges = %v, %v", xs, err)
		}
		x := xs[0]
		if x.ID != "stp_01:1" || x.Model != "test-model" || x.Usage.TotalTokens != 24 || x.Policy != "keep" || len(x.Conversation) != 3 ||
			x.Conversation[2].Content != `{"risk":"low"}` || strings.Contains(x.Conversation[1].Content, "svc_sk_live_") {
			t.Fatalf("exchange = %+v", x)
		}
		if other, _ := s.Automation.Exchanges(ctx, orgB, "stp_01"); len(other) != 0 {
			t.Fatal("another organisation reads the exchange")
		}
		if got := testutil.ToFloat64(mustCounter(t, reg, orgA, "test-model", "prompt")); got != 20 {
			t.Fatalf("prompt tokens metric = %v", got)
		}
	})
}

func TestStepAuditRedacted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		a, _, _, _ := newActivities(t, s, 0, automation.AuditRedact, aitest.Reply{Content: `{"risk":"high"}`})
		if _, err := step(a, orgA); err != nil {
			t.Fatal(err)
		}
		xs, _ := s.Automation.Exchanges(context.Background(), orgA, "stp_01")
		if len(xs) != 1 || xs[0].Policy != "redact" || strings.Contains(xs[0].Conversation[2].Content, "high") {
			t.Fatalf("exchange = %+v", xs)
		}
	})
}

func TestTemporalError(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tests := []struct {
			name         string
			replies      []aitest.Reply
			errType      string
			nonRetryable bool
			delay        time.Duration
		}{
			{"429 with Retry-After", []aitest.Reply{{Status: 429, Header: map[string][]string{"Retry-After": {"12"}}}}, automation.ErrTypeRateLimited, false, 12 * time.Second},
			{"500", []aitest.Reply{{Status: 500}}, automation.ErrTypeProvider, false, 0},
			{"401", []aitest.Reply{{Status: 401}}, automation.ErrTypeFinal, true, 0},
			{"schema broken twice", []aitest.Reply{{Content: `{}`}, {Content: `[]`}}, automation.ErrTypeFinal, true, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				a, _, _, _ := newActivities(t, s, 0, automation.AuditKeep, tt.replies...)
				_, err := step(a, ids.New(ids.Organization))
				err = TemporalError(err, 1)
				var ae *temporal.ApplicationError
				if !errors.As(err, &ae) || ae.Type() != tt.errType || ae.NonRetryable() != tt.nonRetryable || ae.NextRetryDelay() != tt.delay {
					t.Fatalf("err = %#v, want type %s nonRetryable %v delay %v", err, tt.errType, tt.nonRetryable, tt.delay)
				}
				var d automation.StepFailure
				if ae.Details(&d) != nil || d.Attempt != 1 {
					t.Fatalf("details = %+v", d)
				}
			})
		}
	})
}

func TestStepNotConfigured(t *testing.T) {
	a := &Activities{Runner: &automation.Runner{Model: mustModel(t, automation.ProviderConfig{})}}
	_, err := step(a, orgA)
	err = TemporalError(err, 1)
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != automation.ErrTypeFinal || !ae.NonRetryable() || ae.Message() != "ai not configured" {
		t.Fatalf("err = %v", err)
	}
}

func TestStepDailyBudget(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, srv, log, _ := newActivities(t, s, 50, automation.AuditKeep,
			aitest.Reply{Content: `{"risk":"low"}`, PromptTokens: 40, CompletionTokens: 5},
			aitest.Reply{Content: `{"risk":"low"}`, PromptTokens: 40, CompletionTokens: 5})
		for i := 0; i < 2; i++ { // 45 tokens, then 90: the second crosses 50
			if _, err := step(a, orgA); err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
		}
		if n := len(log.named(events.AutomationBudgetExceeded)); n != 1 {
			t.Fatalf("%d budget events after crossing, want 1", n)
		}
		_, err := step(a, orgA)
		err = TemporalError(err, 1)
		var ae *temporal.ApplicationError
		if !errors.As(err, &ae) || ae.Type() != automation.ErrTypeFinal || !strings.Contains(ae.Message(), "ai daily token budget exceeded: 90 of 50 tokens used") {
			t.Fatalf("err = %v", err)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Fatalf("%d model calls, want 2 (the refused step never calls)", n)
		}
		evs := log.named(events.AutomationBudgetExceeded)
		if len(evs) != 1 || evs[0].OrgID != orgA || evs[0].Data["usedTokens"] != int64(90) || evs[0].Data["dailyTokens"] != int64(50) {
			t.Fatalf("budget events = %+v", evs)
		}
		if used, _ := s.Automation.Used(ctx, orgB, automation.Day(time.Now())); used != 0 {
			t.Fatalf("org_b used %d", used)
		}
	})
}

// TestStepDailyBudgetOfTheOrganisation: an allowance arranged for one organisation (svc
// limits) replaces ai.daily_tokens at its next step, and its event names it; reset, the
// default applies again.
func TestStepDailyBudgetOfTheOrganisation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		replies := make([]aitest.Reply, 4)
		for i := range replies {
			replies[i] = aitest.Reply{Content: `{"risk":"low"}`, PromptTokens: 40, CompletionTokens: 5}
		}
		a, _, log, _ := newActivities(t, s, 50, automation.AuditKeep, replies...)
		a.Runner.Budget.Limits = s.Automation
		if err := s.ArrangeLimits(ctx, orgA, "sandbox", []store.LimitChange{{Tokens: 100}}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // 45, then 90: past the default 50, within orgA's 100
			if _, err := step(a, orgA); err != nil {
				t.Fatalf("run %d within the organisation's 100: %v", i, err)
			}
		}
		if n := len(log.named(events.AutomationBudgetExceeded)); n != 0 {
			t.Fatalf("%d budget events at 90 of 100", n)
		}
		if _, err := step(a, orgA); err != nil { // 135: crosses 100
			t.Fatal(err)
		}
		evs := log.named(events.AutomationBudgetExceeded)
		if len(evs) != 1 || evs[0].Data["dailyTokens"] != int64(100) || evs[0].Data["usedTokens"] != int64(135) {
			t.Fatalf("budget events = %+v", evs)
		}
		if _, err := step(a, orgA); err == nil || !strings.Contains(err.Error(), "135 of 100 tokens") {
			t.Fatalf("a step past the organisation's allowance: %v", err)
		}
		if err := s.ArrangeLimits(ctx, orgA, "sandbox", []store.LimitChange{{Reset: true}}); err != nil {
			t.Fatal(err)
		}
		if n, set, err := s.Automation.DailyTokens(ctx, orgA); err != nil || set || n != 0 {
			t.Fatalf("after reset: %d, %v, %v", n, set, err)
		}
		if _, err := step(a, orgA); err == nil || !strings.Contains(err.Error(), "135 of 50 tokens") {
			t.Fatalf("after reset, a step against the default: %v", err)
		}
	})
}

func TestLedgerConcurrentCharges(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Automation.Add(ctx, orgA, "2026-11-23", 5); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if used, err := s.Automation.Used(ctx, orgA, "2026-11-23"); err != nil || used != 40 {
			t.Fatalf("used = %d, %v; want 40", used, err)
		}
	})
}

func mustModel(t *testing.T, cfg automation.ProviderConfig) automation.Model {
	t.Helper()
	m, err := automation.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustCounter is the tokens counter registered on reg (NewMetrics reuses registered collectors).
func mustCounter(t *testing.T, reg *prometheus.Registry, labels ...string) prometheus.Collector {
	t.Helper()
	return NewMetrics(reg).tokens.WithLabelValues(labels...)
}
