package automation_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/automation/aitest"
)

// Secrets shaped like the real ones: an API key (SPEC 5.2), a webhook secret and a
// document password.
const (
	apiKey        = "svc_sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	webhookSecret = "svc_whsec_c2VjcmV0LXZhbHVlLWZvci10ZXN0cw=="
	docPassword   = "Tr0ub4dor&3"
	// standardSecret is the same webhook secret in the Standard Webhooks form (webhook.StandardSecret).
	standardSecret = "whsec_c2VjcmV0LXZhbHVlLWZvci10ZXN0cw=="
)

func TestRedactorRemovesSecrets(t *testing.T) {
	r := automation.NewRedactor(docPassword)
	cases := map[string]string{
		"api key":          "call with " + apiKey + " please",
		"webhook secret":   "secret=" + webhookSecret,
		"named password":   "the PDF opens with " + docPassword,
		"json password":    `{"documentPassword": "hunter22", "name": "Ada"}`,
		"key=value":        "apiKey=abc123def password: letmein",
		"bearer":           "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload",
		"sandbox key json": `{"key":"svc_sk_sandbox_AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH"}`,
		"standard secret":  "verify with " + standardSecret + " in the receiver",
	}
	secrets := []string{apiKey, webhookSecret, standardSecret, docPassword, "hunter22", "abc123def", "letmein", "eyJhbGciOiJIUzI1NiJ9", "svc_sk_sandbox_AAAA"}
	for name, in := range cases {
		out := r.Redact(in)
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s: %q still holds %q", name, out, s)
			}
		}
		if leaks := r.Leaks(out); len(leaks) != 0 {
			t.Errorf("%s: Leaks(%q) = %v", name, out, leaks)
		}
		if !strings.Contains(out, automation.Redacted) {
			t.Errorf("%s: nothing redacted in %q", name, out)
		}
	}
	if got := r.Redact(`{"name": "Ada", "amount": 12}`); got != `{"name": "Ada", "amount": 12}` {
		t.Errorf("ordinary text changed: %q", got)
	}
}

func TestNoSecretReachesTheModel(t *testing.T) {
	srv, m := newModel(t, aitest.Reply{Content: `{"ok":true}`})
	p := automation.Prompt{
		System: "Webhook secret for reference: " + webhookSecret,
		Prompt: "Customer wrote: my key is " + apiKey + " and the file password is " + docPassword,
		Schema: []byte(`{"type":"object"}`),
	}
	if _, err := automation.Ask(context.Background(), m, p, docPassword); err != nil {
		t.Fatal(err)
	}
	got := srv.Received()
	for _, s := range []string{apiKey, webhookSecret, docPassword} {
		if strings.Contains(got, s) {
			t.Fatalf("the model received %q", s)
		}
	}
	if leaks := automation.NewRedactor(docPassword).Leaks(got); len(leaks) != 0 {
		t.Fatalf("leaks: %v", leaks)
	}
}

func TestBudget(t *testing.T) {
	ledger := &automation.MemoryLedger{}
	b := automation.Budget{DailyTokens: 100, Ledger: ledger}
	ctx := context.Background()
	day1 := time.Date(2026, 11, 23, 23, 59, 0, 0, time.UTC)
	if err := b.Check(ctx, "org_a", day1); err != nil {
		t.Fatal(err)
	}
	if crossed, _ := b.Charge(ctx, "org_a", day1, 60); crossed {
		t.Fatal("60 of 100 crossed the budget")
	}
	if err := b.Check(ctx, "org_a", day1); err != nil {
		t.Fatalf("60 of 100: %v", err)
	}
	if crossed, _ := b.Charge(ctx, "org_a", day1, 45); !crossed {
		t.Fatal("105 of 100 did not report the crossing")
	}
	if crossed, _ := b.Charge(ctx, "org_a", day1, 5); crossed {
		t.Fatal("the crossing was reported twice")
	}
	err := b.Check(ctx, "org_a", day1)
	var be *automation.BudgetExceededError
	if !errors.As(err, &be) || be.Used != 110 || be.Limit != 100 || be.Day != "2026-11-23" || !automation.Final(err) {
		t.Fatalf("err = %#v", err)
	}
	if err.Error() != "ai daily token budget exceeded: 110 of 100 tokens used on 2026-11-23" {
		t.Fatalf("message = %q", err)
	}
	if err := b.Check(ctx, "org_b", day1); err != nil {
		t.Fatalf("another organisation was refused: %v", err)
	}
	if err := b.Check(ctx, "org_a", day1.Add(2*time.Minute)); err != nil {
		t.Fatalf("the next UTC day was refused: %v", err)
	}
	if err := (automation.Budget{Ledger: ledger}).Check(ctx, "org_a", day1); err != nil {
		t.Fatalf("an unlimited budget refused: %v", err)
	}
}

// orgLimits is automation.Limits in a map.
type orgLimits map[string]int64

func (l orgLimits) DailyTokens(_ context.Context, orgID string) (int64, bool, error) {
	n, ok := l[orgID]
	return n, ok, nil
}

// TestBudgetOwnLimits: an organisation's own allowance replaces the default, both ways (0:
// unlimited), and the crossing is reported against it; the others keep the default.
func TestBudgetOwnLimits(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	b := automation.Budget{DailyTokens: 100, Ledger: &automation.MemoryLedger{},
		Limits: orgLimits{"org_big": 1000, "org_free": 0, "org_small": 10}}
	for _, org := range []string{"org_big", "org_free", "org_small", "org_default"} {
		if _, err := b.Charge(ctx, org, now, 150); err != nil {
			t.Fatal(err)
		}
	}
	for org, refused := range map[string]bool{"org_big": false, "org_free": false, "org_small": true, "org_default": true} {
		err := b.Check(ctx, org, now)
		var be *automation.BudgetExceededError
		if got := errors.As(err, &be); got != refused {
			t.Errorf("%s after 150 tokens: %v, want refused %v", org, err, refused)
		}
		if refused && be.Limit != map[string]int64{"org_small": 10, "org_default": 100}[org] {
			t.Errorf("%s refused against %d", org, be.Limit)
		}
	}
	if crossed, _ := b.Charge(ctx, "org_big", now, 900); !crossed {
		t.Error("1,050 of org_big's 1,000 did not report the crossing")
	}
	if limit, _ := b.Limit(ctx, "org_default"); limit != 100 {
		t.Errorf("org_default's limit = %d, want the default 100", limit)
	}
}

func TestRunnerChargesAndRefuses(t *testing.T) {
	srv, m := newModel(t, aitest.Reply{Content: "a", PromptTokens: 70, CompletionTokens: 30}, aitest.Reply{Content: "b"})
	var observed []string
	r := &automation.Runner{
		Model:  m,
		Budget: automation.Budget{DailyTokens: 100, Ledger: &automation.MemoryLedger{}},
		Observe: func(org string, res automation.Result, err error) {
			observed = append(observed, org+":"+res.Model)
		},
	}
	out, err := r.Run(context.Background(), "org_a", automation.Prompt{Prompt: "x"})
	if err != nil || !out.BudgetCrossed || out.Usage.TotalTokens != 100 {
		t.Fatalf("first run: %v %+v", err, out)
	}
	_, err = r.Run(context.Background(), "org_a", automation.Prompt{Prompt: "y"})
	var be *automation.BudgetExceededError
	if !errors.As(err, &be) {
		t.Fatalf("second run: err = %v, want the budget error", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a refused step reached the model: %d requests", n)
	}
	if len(observed) != 1 || observed[0] != "org_a:test-model" {
		t.Fatalf("observed %v", observed)
	}
}

func TestRunnerChargesAFailedStep(t *testing.T) {
	_, m := newModel(t, aitest.Reply{Content: "no"}, aitest.Reply{Content: "still no"})
	ledger := &automation.MemoryLedger{}
	r := &automation.Runner{Model: m, Budget: automation.Budget{DailyTokens: 1000, Ledger: ledger}}
	_, err := r.Run(context.Background(), "org_a", automation.Prompt{Prompt: "x", Schema: []byte(`{"type":"object"}`)})
	if err == nil {
		t.Fatal("want an invalid answer")
	}
	if used, _ := ledger.Used(context.Background(), "org_a", automation.Day(time.Now())); used != 30 {
		t.Fatalf("used = %d, want the 30 tokens of both answers", used)
	}
}

func TestAudit(t *testing.T) {
	conv := []automation.Message{{Role: "user", Content: "Summarise Ada's case"}, {Role: "assistant", Content: "Ada is fine."}}
	if got := automation.Audit(automation.AuditKeep, conv); got.Conversation[0].Content != conv[0].Content {
		t.Fatalf("keep: %+v", got)
	}
	got := automation.Audit(automation.AuditRedact, conv)
	if got.Policy != automation.AuditRedact || got.Conversation[1].Role != "assistant" || strings.Contains(got.Conversation[0].Content, "Ada") ||
		got.Conversation[0].Content != "[redacted] (20 bytes)" {
		t.Fatalf("redact: %+v", got)
	}
	if got := automation.Audit("", conv); got.Policy != automation.AuditRedact {
		t.Fatalf("an unknown policy kept the text: %+v", got)
	}
}

func TestFinal(t *testing.T) {
	final := []error{automation.ErrNotConfigured, &automation.InputError{Msg: "document doc_1 not found"}, &automation.InvalidAnswerError{Reason: "x"},
		&automation.BudgetExceededError{}, &automation.ProviderError{Status: 400}}
	for _, err := range final {
		if !automation.Final(err) {
			t.Errorf("Final(%v) = false", err)
		}
	}
	for _, err := range []error{&automation.RateLimitedError{}, &automation.ProviderError{Status: 503, Temporary: true}, errors.New("eof")} {
		if automation.Final(err) {
			t.Errorf("Final(%v) = true", err)
		}
	}
}
