package orchestration

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	autoacts "github.com/svcplatform/svc/activities/automation"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/automation/aitest"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// TestRunAINode asks a loopback model for an ai node through the automation product's model
// step: the output the node's later nodes read, and the audit record kept under the step.
func TestRunAINode(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		srv := aitest.New(aitest.Reply{Content: `{"risk":"low"}`, PromptTokens: 30, CompletionTokens: 6})
		defer srv.Close()
		m, err := automation.NewModel(automation.ProviderConfig{BaseURL: srv.BaseURL(), Model: "test-model", AllowCIDRs: []string{"127.0.0.0/8"}})
		if err != nil {
			t.Fatal(err)
		}
		o := &Activities{Store: s, AI: &autoacts.Activities{Runner: &automation.Runner{Model: m}, Store: s, Audit: automation.AuditKeep}}
		org := ids.New(ids.Organization)
		in := orchwf.AINodeInput{OrgID: org, ExecutionID: ids.New(ids.Execution), StepID: ids.New(ids.Step), NodeID: "assess",
			Prompt: automation.Prompt{Prompt: "Assess", Schema: []byte(`{"type":"object","required":["risk"]}`)}}
		res, err := o.RunAINode(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		want := orchwf.AIOutput{Answer: map[string]any{"risk": "low"}, Model: "test-model", Usage: automation.Usage{PromptTokens: 30, CompletionTokens: 6, TotalTokens: 36},
			LatencyMs: res.Output.LatencyMs, Attempts: 1}
		if res.Attempt != 1 || res.Output.Model != want.Model || res.Output.Usage != want.Usage || res.Output.Attempts != 1 || res.Output.Answer.(map[string]any)["risk"] != "low" {
			t.Fatalf("result = %+v", res)
		}
		xs, err := s.Automation.Exchanges(context.Background(), org, in.StepID)
		if err != nil || len(xs) != 1 || xs[0].ID != in.StepID+":1" || xs[0].ExecutionID != in.ExecutionID || xs[0].Usage.TotalTokens != 36 {
			t.Fatalf("exchanges = %+v, %v", xs, err)
		}
	})
}

func TestRunAINodeWithoutProvider(t *testing.T) {
	_, err := (&Activities{}).RunAINode(context.Background(), orchwf.AINodeInput{OrgID: "org_x", StepID: "stp_x", Prompt: automation.Prompt{Prompt: "x"}})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != automation.ErrTypeFinal || !ae.NonRetryable() || !strings.Contains(ae.Message(), "ai not configured") {
		t.Fatalf("err = %v", err)
	}
}
