// Package products is the one list of the products the API serves: one line per product.
package products

import (
	"log/slog"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/accounts"
	"github.com/svcplatform/svc/api/automation"
	"github.com/svcplatform/svc/api/cases"
	"github.com/svcplatform/svc/api/customers"
	"github.com/svcplatform/svc/api/documents"
	"github.com/svcplatform/svc/api/fraud"
	"github.com/svcplatform/svc/api/identity"
	"github.com/svcplatform/svc/api/orchestration"
	"github.com/svcplatform/svc/api/screening"
	"github.com/svcplatform/svc/api/statements"
	"github.com/svcplatform/svc/api/webhooks"
)

// All builds the platform's accounts API and every product's API from d, for api.New:
//
//	srv := api.New(deps, products.All(deps)...)
func All(d api.Deps) []api.Product {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	scr := screening.New(screening.Deps{Config: d.Config, Store: d.Store, Temporal: d.Temporal, Logger: d.Logger, Now: d.Now})
	return []api.Product{
		accounts.New(accounts.Deps{Config: d.Config, Store: d.Store, Now: d.Now, Dev: d.Dev}),
		customers.New(customers.Deps{Store: d.Store, Now: d.Now, Changed: scr.CustomerChanged}),
		webhooks.New(webhooks.Deps{Config: d.Config, Store: d.Store, Temporal: d.Temporal, Logger: d.Logger, Now: d.Now}),
		orchestration.New(orchestration.Deps{Config: d.Config, Store: d.Store, Temporal: d.Temporal}),
		documents.New(documents.Deps{Config: d.Config, Store: d.Store, Temporal: d.Temporal, Logger: d.Logger, Now: d.Now, Blobs: d.Blobs}),
		identity.New(identity.Deps{Config: d.Config, Store: d.Store, Temporal: d.Temporal, Logger: d.Logger, Now: d.Now, Blobs: d.Blobs}),
		scr,
		fraud.New(fraud.Deps{Config: d.Config, Store: d.Store, Temporal: d.Temporal, Logger: d.Logger, Now: d.Now}),
		cases.New(cases.Deps{Config: d.Config, Store: d.Store, Temporal: d.Temporal, Logger: d.Logger}),
		automation.New(automation.Deps{Store: d.Store, Temporal: d.Temporal, Now: d.Now, Cases: d.Store.Cases}),
		statements.New(statements.Deps{Config: d.Config, Store: d.Store, Temporal: d.Temporal, Logger: d.Logger, Now: d.Now, Blobs: d.Blobs}),
	}
}
