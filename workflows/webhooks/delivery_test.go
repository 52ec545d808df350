package webhooks

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/svcplatform/svc/webhook"
	"github.com/svcplatform/svc/workflows"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// specLadder is SPEC 6.6: delays before each of the 6 attempts.
var specLadder = []time.Duration{0, 10 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}

// receiver scripts what each attempt observes and records when attempts ran.
type receiver struct {
	env     *testsuite.TestWorkflowEnvironment
	answers func(attempt int) (WebhookAttemptResult, error)

	mu     sync.Mutex
	times  []time.Time
	inputs []WebhookAttemptInput
	drops  []WebhookDropInput
}

func (r *receiver) attempt(_ context.Context, in WebhookAttemptInput) (WebhookAttemptResult, error) {
	r.mu.Lock()
	r.times = append(r.times, r.env.Now())
	r.inputs = append(r.inputs, in)
	r.mu.Unlock()
	return r.answers(in.Attempt)
}

func (r *receiver) drop(_ context.Context, in WebhookDropInput) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drops = append(r.drops, in)
	return nil
}

// gaps returns the time from the workflow start to attempt 1, then between consecutive attempts.
func (r *receiver) gaps(start time.Time) []time.Duration {
	var out []time.Duration
	prev := start
	for _, t := range r.times {
		out = append(out, t.Sub(prev))
		prev = t
	}
	return out
}

func answer(code int) WebhookAttemptResult { return WebhookAttemptResult{StatusCode: code} }

func run(t *testing.T, in WebhookDeliveryInput, answers func(attempt int) (WebhookAttemptResult, error)) (*receiver, WebhookDeliveryResult, time.Time, error) {
	t.Helper()
	env := workflowtest.NewEnv()
	r := &receiver{env: env, answers: answers}
	env.RegisterWorkflow(WebhookDelivery)
	env.RegisterActivityWithOptions(r.attempt, activity.RegisterOptions{Name: ActivityAttemptWebhookDelivery})
	env.RegisterActivityWithOptions(r.drop, activity.RegisterOptions{Name: ActivityDropWebhookDelivery})
	start := env.Now()
	env.ExecuteWorkflow(WebhookDelivery, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	var res WebhookDeliveryResult
	err := env.GetWorkflowError()
	if err == nil {
		if gerr := env.GetWorkflowResult(&res); gerr != nil {
			t.Fatal(gerr)
		}
	}
	return r, res, start, err
}

func input() WebhookDeliveryInput {
	return WebhookDeliveryInput{DeliveryID: "whd_1", OrgID: "org_1", Schedule: specLadder}
}

func TestWebhookDeliveryLadderThenDropped(t *testing.T) {
	r, res, start, err := run(t, input(), func(int) (WebhookAttemptResult, error) { return answer(500), nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := r.gaps(start); !reflect.DeepEqual(got, specLadder) {
		t.Errorf("delays before attempts = %v, want %v", got, specLadder)
	}
	want := WebhookDeliveryResult{Status: webhook.StatusDropped, Attempts: 6, LastStatusCode: 500}
	if res != want {
		t.Errorf("result = %+v, want %+v", res, want)
	}
	for i, in := range r.inputs {
		if in.Attempt != i+1 || in.DeliveryID != "whd_1" || in.OrgID != "org_1" ||
			in.ReceiverTimeout != DefaultReceiverTimeout || !reflect.DeepEqual(in.Schedule, specLadder) {
			t.Errorf("attempt %d input = %+v", i+1, in)
		}
	}
	if len(r.drops) != 0 {
		t.Errorf("drop activity ran although the last attempt recorded itself: %+v", r.drops)
	}
}

func TestWebhookDeliveryStopsOnSuccess(t *testing.T) {
	r, res, start, err := run(t, input(), func(n int) (WebhookAttemptResult, error) {
		if n == 3 {
			return answer(204), nil
		}
		return WebhookAttemptResult{Error: "connection refused"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (WebhookDeliveryResult{Status: webhook.StatusDelivered, Attempts: 3, LastStatusCode: 204}); res != want {
		t.Errorf("result = %+v, want %+v", res, want)
	}
	if got := r.gaps(start); !reflect.DeepEqual(got, specLadder[:3]) {
		t.Errorf("delays = %v, want %v", got, specLadder[:3])
	}
}

func TestWebhookDeliveryFinalAnswers(t *testing.T) {
	tests := []struct {
		name string
		code int
		want webhook.DeliveryStatus
	}{
		{"200 on the first attempt", 200, webhook.StatusDelivered},
		{"299 is 2xx", 299, webhook.StatusDelivered},
		{"410 drops at once", 410, webhook.StatusDropped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, res, _, err := run(t, input(), func(int) (WebhookAttemptResult, error) { return answer(tt.code), nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(r.times) != 1 || res.Status != tt.want || res.Attempts != 1 {
				t.Errorf("%d attempts, result %+v; want 1 attempt, %s", len(r.times), res, tt.want)
			}
		})
	}
}

func TestWebhookDeliveryRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		code       int
		retryAfter int
		wantGap    time.Duration // before attempt 2
	}{
		{"429 longer than the rung", 429, 60, 60 * time.Second},
		{"503 longer than the rung", 503, 300, 5 * time.Minute},
		{"429 shorter than the rung", 429, 3, 10 * time.Second},
		{"429 capped at the largest rung", 429, 86400, time.Hour},
		{"500 ignores Retry-After", 500, 60, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, res, start, err := run(t, input(), func(n int) (WebhookAttemptResult, error) {
				if n == 1 {
					return WebhookAttemptResult{StatusCode: tt.code, RetryAfterSeconds: tt.retryAfter}, nil
				}
				return answer(200), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.gaps(start); len(got) != 2 || got[1] != tt.wantGap {
				t.Errorf("gaps = %v, want attempt 2 after %v", got, tt.wantGap)
			}
			if res.Status != webhook.StatusDelivered {
				t.Errorf("status %s", res.Status)
			}
		})
	}
}

func TestWebhookDeliveryActivityErrorIsAFailedAttempt(t *testing.T) {
	calls := map[int]int{}
	var mu sync.Mutex
	r, res, start, err := run(t, WebhookDeliveryInput{DeliveryID: "whd_2", OrgID: "org_1",
		Schedule: []time.Duration{0, time.Second, 2 * time.Second}, ReceiverTimeout: 3 * time.Second},
		func(n int) (WebhookAttemptResult, error) {
			mu.Lock()
			calls[n]++
			mu.Unlock()
			return WebhookAttemptResult{}, errors.New("store unavailable")
		})
	if err != nil {
		t.Fatal(err)
	}
	if want := (WebhookDeliveryResult{Status: webhook.StatusDropped, Attempts: 3}); res != want {
		t.Errorf("result = %+v, want %+v", res, want)
	}
	if !reflect.DeepEqual(calls, map[int]int{1: 1, 2: 1, 3: 1}) {
		t.Errorf("activity calls per attempt = %v: an attempt must not be retried by Temporal", calls)
	}
	if got := r.gaps(start); !reflect.DeepEqual(got, []time.Duration{0, time.Second, 2 * time.Second}) {
		t.Errorf("gaps = %v", got)
	}
	if len(r.drops) != 1 || r.drops[0].DeliveryID != "whd_2" || r.drops[0].Attempt != 3 || r.drops[0].Error == "" {
		t.Errorf("drops = %+v, want one for attempt 3 with the error", r.drops)
	}
	if r.inputs[0].ReceiverTimeout != 3*time.Second {
		t.Errorf("receiver timeout = %v", r.inputs[0].ReceiverTimeout)
	}
}

func TestWebhookDeliveryGoneDropsAtOnce(t *testing.T) {
	r, res, _, err := run(t, input(), func(int) (WebhookAttemptResult, error) {
		return WebhookAttemptResult{Gone: true, Error: "subscription deleted"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.times) != 1 || res.Status != webhook.StatusDropped {
		t.Errorf("%d attempts, %+v", len(r.times), res)
	}
}

func TestWebhookDeliveryShrunkSchedule(t *testing.T) {
	in := input()
	in.Schedule = []time.Duration{0, 0, 50 * time.Millisecond}
	r, res, start, err := run(t, in, func(int) (WebhookAttemptResult, error) { return answer(502), nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 3 || res.Status != webhook.StatusDropped || !reflect.DeepEqual(r.gaps(start), in.Schedule) {
		t.Errorf("result %+v gaps %v", res, r.gaps(start))
	}
}

func TestWebhookDeliveryEmptySchedule(t *testing.T) {
	in := input()
	in.Schedule = nil
	r, _, _, err := run(t, in, func(int) (WebhookAttemptResult, error) { return answer(200), nil })
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || !appErr.NonRetryable() || len(r.times) != 0 {
		t.Fatalf("err = %v, attempts %d; want a non-retryable error and no attempt", err, len(r.times))
	}
}

func TestDecideWebhookAttempt(t *testing.T) {
	tests := []struct {
		name       string
		attempt    int
		code       int
		retryAfter int
		want       WebhookDecision
	}{
		{"2xx", 1, 201, 0, WebhookDecision{Status: webhook.StatusDelivered}},
		{"2xx on last", 6, 200, 0, WebhookDecision{Status: webhook.StatusDelivered}},
		{"410", 2, 410, 0, WebhookDecision{Status: webhook.StatusDropped}},
		{"410 with Retry-After", 1, 410, 60, WebhookDecision{Status: webhook.StatusDropped}},
		{"no answer", 1, 0, 0, WebhookDecision{Status: webhook.StatusFailed, NextDelay: 10 * time.Second}},
		{"3xx is a failure", 2, 302, 0, WebhookDecision{Status: webhook.StatusFailed, NextDelay: 30 * time.Second}},
		{"last attempt fails", 6, 500, 0, WebhookDecision{Status: webhook.StatusDropped}},
		{"last attempt 429", 6, 429, 60, WebhookDecision{Status: webhook.StatusDropped}},
		{"429 retry-after above rung", 3, 429, 300, WebhookDecision{Status: webhook.StatusFailed, NextDelay: 5 * time.Minute}},
		{"429 retry-after below rung", 4, 429, 300, WebhookDecision{Status: webhook.StatusFailed, NextDelay: 10 * time.Minute}},
		{"503 retry-after above rung", 3, 503, 1200, WebhookDecision{Status: webhook.StatusFailed, NextDelay: 20 * time.Minute}},
		{"503 retry-after capped", 5, 503, 10800, WebhookDecision{Status: webhook.StatusFailed, NextDelay: time.Hour}},
		{"404 retry-after ignored", 1, 404, 3600, WebhookDecision{Status: webhook.StatusFailed, NextDelay: 10 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := WebhookAttemptResult{StatusCode: tt.code, RetryAfterSeconds: tt.retryAfter}
			if got := DecideWebhookAttempt(specLadder, tt.attempt, res); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWebhookDeliveryStartOptions(t *testing.T) {
	o := WebhookDeliveryStartOptions("whd_9")
	if o.ID != "whd_9" || o.TaskQueue != workflows.QueueWebhooks || o.WorkflowIDConflictPolicy == 0 || o.WorkflowIDReusePolicy == 0 {
		t.Errorf("options = %+v", o)
	}
}

// A ladder started after a failed inline first attempt begins at its second rung, after the
// wait the first attempt decided, and never makes attempt 1 again.
func TestWebhookDeliveryFromSecondRung(t *testing.T) {
	in := input()
	in.FromAttempt, in.FirstWait = 2, 45*time.Second // e.g. a Retry-After above the 10 s rung
	r, res, start, err := run(t, in, func(int) (WebhookAttemptResult, error) { return answer(500), nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]time.Duration{45 * time.Second}, specLadder[2:]...); !reflect.DeepEqual(r.gaps(start), want) {
		t.Errorf("delays before attempts = %v, want %v", r.gaps(start), want)
	}
	for i, ai := range r.inputs {
		if ai.Attempt != i+2 {
			t.Errorf("attempt %d has number %d", i+2, ai.Attempt)
		}
	}
	if want := (WebhookDeliveryResult{Status: webhook.StatusDropped, Attempts: 6, LastStatusCode: 500}); res != want {
		t.Errorf("result = %+v, want %+v", res, want)
	}

	in.FromAttempt = len(specLadder) + 1
	if _, _, _, err := run(t, in, func(int) (WebhookAttemptResult, error) { return answer(204), nil }); err == nil {
		t.Error("a ladder past its last rung started")
	}
}
