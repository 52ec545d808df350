package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/webhook"
)

// checked stops an example at the first failure; it turns a failure envelope into an error.
func checked(res *http.Response, body []byte, err error) {
	if err == nil {
		err = client.Check(res, body)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// This example starts an execution of a workflow that waits for an admin's approval, and
// approves it with a second key bound to another admin: four-eyes, the one who starts a run
// never approves it.
func ExampleNew() {
	baseURL, key := svc() // a running svc and a key bound to a user
	ctx := context.Background()
	c, err := client.New(baseURL, client.Config{Key: key})
	if err != nil {
		log.Fatal(err)
	}
	run := client.NewExternalID()
	slug := "example-" + run[len(run)-8:]
	wf, err := c.CreateWorkflowWithResponse(ctx, client.CreateWorkflowJSONRequestBody{Slug: slug, Name: "Payout",
		Definition: client.WorkflowDefinition{Nodes: []map[string]any{
			{"id": "review", "kind": "human_approval", "config": map[string]any{"actionLabel": "Pay?", "assignTo": "role:admin"}, "next": map[string]any{"approve": "done"}},
			{"id": "done", "kind": "transform", "config": map[string]any{"output": map[string]any{"paid": true}}},
		}}})
	checked(wf.HTTPResponse, wf.Body, err)

	// A second admin and a key bound to them.
	user, err := c.CreateUserWithResponse(ctx, client.CreateUserJSONRequestBody{Email: run + "@example.com", Role: "admin"})
	checked(user.HTTPResponse, user.Body, err)
	bound, err := c.CreateApiKeyWithResponse(ctx, client.CreateApiKeyJSONRequestBody{Name: "reviewer",
		Scopes: []string{"approvals:write", "executions:view"}, ActAsUserId: &user.JSON201.Data.Id})
	checked(bound.HTTPResponse, bound.Body, err)
	reviewer, err := client.New(baseURL, client.Config{Key: bound.JSON201.Data.Key})
	if err != nil {
		log.Fatal(err)
	}

	// Start it; the same externalId again is the same execution.
	inputs := map[string]any{"amount": 250}
	start := client.StartExecutionJSONRequestBody{Inputs: &inputs, ExternalId: &run}
	first, err := c.StartExecutionWithResponse(ctx, slug, start)
	checked(first.HTTPResponse, first.Body, err)
	again, err := c.StartExecutionWithResponse(ctx, slug, start)
	checked(again.HTTPResponse, again.Body, err)
	fmt.Println("retry is the same execution:", again.JSON202.Data.Id == first.JSON202.Data.Id, client.Idempotent(again.Body))

	// The reviewer approves the pending approval; the run succeeds.
	id := first.JSON202.Data.Id
	pending := "pending"
	var approvalID string
	eventually(func() bool {
		res, err := reviewer.ListApprovalsWithResponse(ctx, &client.ListApprovalsParams{ExecutionId: &id, Status: &pending})
		checked(res.HTTPResponse, res.Body, err)
		if len(res.JSON200.Data) > 0 {
			approvalID = res.JSON200.Data[0].Id
		}
		return approvalID != ""
	})
	// The starter cannot approve their own run: the server refuses, and the client does not retry.
	self, err := c.ApproveApprovalWithResponse(ctx, approvalID, client.ApproveApprovalJSONRequestBody{})
	var apiErr *client.APIError
	if err == nil && errors.As(client.Check(self.HTTPResponse, self.Body), &apiErr) {
		fmt.Println("starter approving:", apiErr.Status, apiErr.Message)
	}
	comment := "ok"
	ok, err := reviewer.ApproveApprovalWithResponse(ctx, approvalID, client.ApproveApprovalJSONRequestBody{Comment: &comment})
	checked(ok.HTTPResponse, ok.Body, err)
	var status string
	eventually(func() bool {
		res, err := c.GetExecutionWithResponse(ctx, id)
		checked(res.HTTPResponse, res.Body, err)
		status = string(res.JSON200.Data.Status)
		return status == "succeeded" || status == "failed"
	})
	fmt.Println("execution:", status)
	// Output:
	// retry is the same execution: true true
	// starter approving: 422 four-eyes violation: drafter cannot submit
	// execution: succeeded
}

// This example subscribes a receiver to webhook.test, asks svc to send one, and verifies
// the delivery's signature with the receiver package webhook.
func ExampleClientWithResponses_TestWebhookWithResponse() {
	baseURL, key := svc()
	ctx := context.Background()
	c, err := client.New(baseURL, client.Config{Key: key})
	if err != nil {
		log.Fatal(err)
	}
	var secret []byte
	got := make(chan string, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(secret, r.Header, body, webhook.WithStandardWebhooks(0)); err != nil {
			got <- err.Error()
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		got <- r.Header.Get("X-Service-Event")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	hook, err := c.CreateWebhookWithResponse(ctx, client.CreateWebhookJSONRequestBody{Url: receiver.URL + "/hook", Events: []string{"webhook.test"}})
	checked(hook.HTTPResponse, hook.Body, err)
	secret = []byte(hook.JSON201.Data.Secret)
	sent, err := c.TestWebhookWithResponse(ctx, hook.JSON201.Data.Id)
	checked(sent.HTTPResponse, sent.Body, err)
	select {
	case ev := <-got:
		fmt.Println("verified:", ev)
	case <-time.After(time.Minute):
		fmt.Println("no delivery")
	}
	// Output:
	// verified: webhook.test
}

// This example pages through the executions feed two rows at a time with EachCursor.
func ExampleEachCursor() {
	baseURL, key := svc()
	ctx := context.Background()
	c, err := client.New(baseURL, client.Config{Key: key})
	if err != nil {
		log.Fatal(err)
	}
	slug := "each-" + client.NewExternalID()[27:]
	wf, err := c.CreateWorkflowWithResponse(ctx, client.CreateWorkflowJSONRequestBody{Slug: slug, Name: "Each",
		Definition: client.WorkflowDefinition{Nodes: []map[string]any{{"id": "done", "kind": "transform", "config": map[string]any{"output": map[string]any{}}}}}})
	checked(wf.HTTPResponse, wf.Body, err)
	for range 5 {
		res, err := c.StartExecutionWithResponse(ctx, slug, client.StartExecutionJSONRequestBody{})
		checked(res.HTTPResponse, res.Body, err)
	}
	limit := 2
	rows := client.EachCursor(ctx, func(ctx context.Context, cursor *string) ([]client.Execution, *string, error) {
		res, err := c.ListExecutionsWithResponse(ctx, &client.ListExecutionsParams{Limit: &limit, Cursor: cursor, WorkflowId: &slug})
		if err == nil {
			err = client.Check(res.HTTPResponse, res.Body)
		}
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Rows, res.JSON200.NextCursor, nil
	})
	n := 0
	for _, err := range rows {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("executions:", n)
	// Output:
	// executions: 5
}

// eventually polls fn every 200 ms for up to two minutes.
func eventually(fn func() bool) {
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if fn() {
			return
		}
	}
	log.Fatal("timed out")
}
