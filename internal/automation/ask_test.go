package automation_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/automation/aitest"
)

const testKey = "sk-test-provider-key-0123456789"

// newModel starts a fake provider with the replies and returns a Model talking to it.
func newModel(t *testing.T, replies ...aitest.Reply) (*aitest.Server, automation.Model) {
	t.Helper()
	srv := aitest.New(replies...)
	t.Cleanup(srv.Close)
	m, err := automation.NewModel(automation.ProviderConfig{
		BaseURL: srv.BaseURL(), Model: "test-model", APIKey: testKey, AllowCIDRs: []string{"127.0.0.0/8"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

var personSchema = json.RawMessage(`{"type":"object","required":["name","age"],"properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"additionalProperties":false}`)

func TestAskWellFormedAnswer(t *testing.T) {
	srv, m := newModel(t, aitest.Reply{Content: `{"name":"Ada","age":36}`, PromptTokens: 40, CompletionTokens: 8})
	temp := 0.2
	res, err := automation.Ask(context.Background(), m, automation.Prompt{
		System: "You extract people.", Prompt: "Ada Lovelace, 36", Schema: personSchema, Temperature: &temp, MaxTokens: 64,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Ada", "age": float64(36)}
	if got, _ := json.Marshal(res.Answer); string(got) != mustJSON(want) {
		t.Fatalf("answer = %s, want %s", got, mustJSON(want))
	}
	if res.Attempts != 1 || res.Model != "test-model" || res.Usage != (automation.Usage{PromptTokens: 40, CompletionTokens: 8, TotalTokens: 48}) {
		t.Fatalf("result = %+v", res)
	}
	if res.Latency <= 0 {
		t.Fatalf("latency not measured: %v", res.Latency)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Authorization != "Bearer "+testKey {
		t.Fatalf("Authorization = %q", r.Authorization)
	}
	if r.Parsed.Model != "test-model" || r.Parsed.Temperature == nil || *r.Parsed.Temperature != 0.2 || r.Parsed.MaxTokens == nil || *r.Parsed.MaxTokens != 64 {
		t.Fatalf("request = %s", r.Body)
	}
	if !strings.Contains(string(r.Parsed.ResponseFormat), "json_object") {
		t.Fatalf("response_format = %s, want json_object", r.Parsed.ResponseFormat)
	}
	if len(r.Parsed.Messages) != 2 || r.Parsed.Messages[0].Role != "system" || !strings.Contains(r.Parsed.Messages[0].Content, `"additionalProperties":false`) ||
		r.Parsed.Messages[1].Content != "Ada Lovelace, 36" {
		t.Fatalf("messages = %+v", r.Parsed.Messages)
	}
}

func TestAskTextAnswerWithoutSchema(t *testing.T) {
	srv, m := newModel(t, aitest.Reply{Content: "A short summary."})
	res, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "Summarise"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "A short summary." {
		t.Fatalf("answer = %#v", res.Answer)
	}
	r := srv.Requests()[0]
	if len(r.Parsed.ResponseFormat) != 0 || len(r.Parsed.Messages) != 1 || r.Parsed.Temperature != nil || r.Parsed.MaxTokens != nil {
		t.Fatalf("request = %s", r.Body)
	}
}

func TestAskMalformedJSONRetriesOnceWithTheError(t *testing.T) {
	srv, m := newModel(t, aitest.Reply{Content: `{"name": "Ada", "age": 36`}, aitest.Reply{Content: "```json\n{\"name\":\"Ada\",\"age\":36}\n```"})
	res, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "Ada, 36", Schema: personSchema})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || res.Usage.TotalTokens != 30 {
		t.Fatalf("attempts %d usage %+v, want 2 and 30 tokens", res.Attempts, res.Usage)
	}
	second := srv.Requests()[1].Parsed.Messages
	if len(second) != 4 || second[2].Role != "assistant" || second[2].Content != `{"name": "Ada", "age": 36` ||
		second[3].Role != "user" || !strings.Contains(second[3].Content, "not valid JSON") {
		t.Fatalf("second conversation = %+v", second)
	}
}

func TestAskMalformedTwiceFails(t *testing.T) {
	_, m := newModel(t, aitest.Reply{Content: "I think the name is Ada."}, aitest.Reply{Content: "Sorry: Ada, 36."})
	res, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "Ada, 36", Schema: personSchema})
	var inv *automation.InvalidAnswerError
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("err = %v, want InvalidAnswerError about JSON", err)
	}
	if !automation.Final(err) || res.Attempts != 2 || res.Usage.TotalTokens != 30 || res.Answer != nil {
		t.Fatalf("final %v, result %+v", automation.Final(err), res)
	}
}

func TestAskSchemaViolation(t *testing.T) {
	srv, m := newModel(t, aitest.Reply{Content: `{"name":"Ada","age":-1}`}, aitest.Reply{Content: `{"name":"Ada"}`})
	_, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "Ada", Schema: personSchema})
	var inv *automation.InvalidAnswerError
	if !errors.As(err, &inv) || !strings.Contains(inv.Reason, "does not conform") || !strings.Contains(inv.Reason, "age") {
		t.Fatalf("err = %v, want a schema violation naming age", err)
	}
	retry := srv.Requests()[1].Parsed.Messages
	if last := retry[len(retry)-1].Content; !strings.Contains(last, "minimum") {
		t.Fatalf("retry message %q does not carry the first violation", last)
	}
}

func TestAskSchemaViolationThenValid(t *testing.T) {
	_, m := newModel(t, aitest.Reply{Content: `{"name":"Ada","age":"36"}`}, aitest.Reply{Content: `{"name":"Ada","age":36}`})
	res, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "Ada", Schema: personSchema})
	if err != nil || res.Attempts != 2 {
		t.Fatalf("err %v attempts %d", err, res.Attempts)
	}
}

func TestAskTruncatedAnswerNamesTheTokenLimit(t *testing.T) {
	_, m := newModel(t, aitest.Reply{Content: `{"name":"Ad`, FinishReason: "length"}, aitest.Reply{Content: `{"name":"Ad`, FinishReason: "length"})
	_, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "Ada", Schema: personSchema, MaxTokens: 3})
	if err == nil || !strings.Contains(err.Error(), "token limit") {
		t.Fatalf("err = %v", err)
	}
}

func TestAskRateLimited(t *testing.T) {
	cases := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"milliseconds", http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"2"}}, 1500 * time.Millisecond},
		{"none", nil, 0},
		{"capped", http.Header{"Retry-After": {"86400"}}, automation.MaxRetryAfter},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, m := newModel(t, aitest.Reply{Status: 429, Header: c.header})
			res, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "hi"})
			var rl *automation.RateLimitedError
			if !errors.As(err, &rl) || rl.RetryAfter != c.want {
				t.Fatalf("err = %#v, want RateLimitedError{%v}", err, c.want)
			}
			if automation.Final(err) || res.Usage.TotalTokens != 0 {
				t.Fatalf("a 429 must be retryable and free: final %v usage %+v", automation.Final(err), res.Usage)
			}
		})
	}
}

func TestAskTimeout(t *testing.T) {
	_, m := newModel(t, aitest.Reply{Content: "late", Delay: 5 * time.Second})
	start := time.Now()
	_, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "hi", Timeout: 200 * time.Millisecond})
	var pe *automation.ProviderError
	if !errors.As(err, &pe) || !pe.Temporary || !strings.Contains(err.Error(), "did not answer within 200ms") {
		t.Fatalf("err = %v, want a temporary timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Ask waited %v past its timeout", d)
	}
}

func TestAskServerErrorThenSuccess(t *testing.T) {
	srv, m := newModel(t, aitest.Reply{Status: 500}, aitest.Reply{Content: `{"name":"Ada","age":36}`})
	p := automation.Prompt{Prompt: "Ada", Schema: personSchema}
	_, err := automation.Ask(context.Background(), m, p)
	var pe *automation.ProviderError
	if !errors.As(err, &pe) || pe.Status != 500 || !pe.Temporary || automation.Final(err) {
		t.Fatalf("first call: err = %v, want a temporary 500", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the client retried on its own: %d requests", n)
	}
	res, err := automation.Ask(context.Background(), m, p) // the activity's next attempt
	if err != nil || res.Attempts != 1 {
		t.Fatalf("second call: %v %+v", err, res)
	}
}

func TestAskFinalProviderErrorHidesTheKey(t *testing.T) {
	_, m := newModel(t, aitest.Reply{Status: 401})
	_, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "hi"})
	var pe *automation.ProviderError
	if !errors.As(err, &pe) || pe.Status != 401 || !automation.Final(err) {
		t.Fatalf("err = %v, want a final 401", err)
	}
	if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("error %q leaks the key or the URL", err)
	}
}

func TestNotConfigured(t *testing.T) {
	m, err := automation.NewModel(automation.ProviderConfig{Model: "x"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "hi"})
	if !errors.Is(err, automation.ErrNotConfigured) || err.Error() != "ai not configured" || !automation.Final(err) {
		t.Fatalf("err = %v", err)
	}
	if res.Answer != nil {
		t.Fatalf("an unconfigured provider answered %v", res.Answer)
	}
}

func TestProviderBehindTheSSRFGuard(t *testing.T) {
	srv := aitest.New()
	t.Cleanup(srv.Close)
	if _, err := automation.NewModel(automation.ProviderConfig{BaseURL: srv.BaseURL(), Model: "m"}); err == nil {
		t.Fatal("a loopback base URL was accepted without ai.allow_cidrs")
	}
	// A host name is resolved at dial time, where the guard refuses it too.
	byName := strings.Replace(srv.BaseURL(), "127.0.0.1", "localhost", 1)
	m, err := automation.NewModel(automation.ProviderConfig{BaseURL: byName, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = automation.Ask(context.Background(), m, automation.Prompt{Prompt: "hi"})
	if !automation.Final(err) || !strings.Contains(err.Error(), "SSRF guard") {
		t.Fatalf("err = %v, want a final SSRF refusal", err)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("the request reached the server")
	}
}

func TestProviderIgnoresOpenAIEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-environment")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	srv := aitest.New()
	t.Cleanup(srv.Close)
	m, err := automation.NewModel(automation.ProviderConfig{BaseURL: srv.BaseURL(), Model: "m", AllowCIDRs: []string{"127.0.0.1/32"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := automation.Ask(context.Background(), m, automation.Prompt{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Received(); strings.Contains(got, "sk-from-environment") || srv.Requests()[0].Authorization != "" {
		t.Fatalf("the environment's key was sent: %q", srv.Requests()[0].Authorization)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
