// Package states lists every transition table of svc, for the generated documentation
// (docs/state-machines.md) and the test that walks every move of every table. A product that
// adds a resource with states adds its table here.
package states

import (
	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/customers"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/fraud"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/internal/statemachine"
	"github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/webhook"
)

// All lists the tables in the order the documentation shows them.
func All() []statemachine.Diagram {
	return []statemachine.Diagram{
		orchestration.Executions, orchestration.Steps, orchestration.Approvals,
		docintel.Lifecycle,
		webhook.Deliveries,
		idv.Table, idv.AttemptTable,
		fraud.Reviews, fraud.Versions,
		customers.Statuses,
		statements.Lifecycle,
		cases.Alerts,
	}
}

// Markdown is the text of docs/state-machines.md.
func Markdown() string { return statemachine.Markdown(All()...) }
