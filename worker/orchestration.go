package worker

import (
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	autoacts "github.com/svcplatform/svc/activities/automation"
	orchacts "github.com/svcplatform/svc/activities/orchestration"
	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/workflows"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// registerOrchestration registers the Execution workflow and its activities (under their
// method names, which the workflow calls them by), and the Ping. http nodes go through the
// webhooks' SSRF guard, with no client-wide timeout: each node applies its own (up to
// orchestration.MaxHTTPTimeout). ai nodes ask the model through the automation product's
// activities (ai).
func registerOrchestration(q map[string]sdkworker.Worker, d Deps, hooks *hookacts.Activities, ai *autoacts.Activities) {
	orch := q[workflows.QueueOrchestration]
	orch.RegisterWorkflowWithOptions(orchwf.Ping, workflow.RegisterOptions{Name: orchwf.PingWorkflowName})
	ping := &orchacts.Ping{Store: d.Store}
	orch.RegisterActivityWithOptions(ping.CompletePing, activity.RegisterOptions{Name: orchwf.ActivityCompletePing})

	orch.RegisterWorkflowWithOptions(orchwf.Execution, workflow.RegisterOptions{Name: orchwf.ExecutionWorkflowName})
	orch.RegisterActivity(&orchacts.Activities{Store: d.Store, Publisher: hooks, HTTP: hooks.Guard.Client(), AI: ai})
}
