package screening

import (
	"context"
	"strconv"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/store"
	scrwf "github.com/svcplatform/svc/workflows/screening"
)

// CustomerQuery is what monitoring screens of a customer: its name, type, birth date and
// country (its nationality when no country is given).
func CustomerQuery(c *store.Customer, threshold float64) scr.Query {
	q := scr.Query{Name: c.FullName, Threshold: threshold, Country: c.Country}
	if q.Country == "" {
		q.Country = c.Nationality
	}
	if t, ok := scr.ParseEntityType(c.Type); ok {
		q.Type = t
	}
	if d, err := scr.ParseDate(c.BirthDate); c.BirthDate != "" && err == nil {
		q.BirthDate = &d
	}
	return q
}

// monitoringRecord is the screening a rescreen records for a customer; its id derives from
// what caused it, so a retried activity writes the same screening once.
func monitoringRecord(c *store.Customer, q scr.Query, lists []string, id string) *store.ScreeningRecord {
	r := &store.ScreeningRecord{ID: id, OrgID: c.OrgID, CustomerID: c.ID, FullName: c.FullName, EntityType: string(q.Type),
		Lists: lists, Threshold: q.Threshold, Trigger: scr.TriggerMonitoring}
	if q.BirthDate != nil {
		r.BirthDate = q.BirthDate.String()
	}
	r.Country, _ = scr.CountryCode(q.Country)
	return r
}

// RescreenBatch screens the next batch of monitored customers against the entities a list
// version added or changed. A customer with a hit gets a monitoring screening (and an alert
// per hit not suppressed); a clear one gets nothing, so a rescreen of every customer writes
// only what needs a look.
func (a *Activities) RescreenBatch(ctx context.Context, in scrwf.RescreenBatchInput) (scrwf.RescreenBatchResult, error) {
	v, err := a.Store.Screening.ListVersion(ctx, in.ListOrgID, in.ListID, in.Version)
	if err != nil {
		return scrwf.RescreenBatchResult{}, err
	}
	l := store.ScreeningList{ID: in.ListID, OrgID: in.ListOrgID, Version: in.Version}
	ix, err := a.Index(ctx, l)
	if err != nil {
		return scrwf.RescreenBatchResult{}, err
	}
	only := map[string]bool{}
	for _, id := range append(append([]string{}, v.Delta.Added...), v.Delta.Changed...) {
		only[id] = true
	}
	total, err := a.Store.Screening.CountMonitored(ctx, in.ListOrgID)
	if err != nil {
		return scrwf.RescreenBatchResult{}, err
	}
	res := scrwf.RescreenBatchResult{Total: total}
	if len(only) == 0 {
		return res, nil // only removals: nothing can match
	}
	customers, err := a.Store.Screening.MonitoredCustomers(ctx, in.ListOrgID, in.After, in.Limit)
	if err != nil {
		return res, err
	}
	thresholds := map[string]float64{}
	for i := range customers {
		c := &customers[i]
		th, ok := thresholds[c.OrgID]
		if !ok {
			if th, err = a.DefaultThreshold(ctx, c.OrgID); err != nil {
				return res, err
			}
			thresholds[c.OrgID] = th
		}
		q := CustomerQuery(c, th)
		q.Only = only
		hits := ix.Search(q)
		if len(hits) > 0 {
			// The version's time and the customer name the screening: a batch run again (a
			// retry, a reset, a second rescreen of the version) records the same one.
			id := ids.DeriveFrom(ids.Screening, v.CreatedAt, "rescreen", in.ListID, strconv.Itoa(in.Version), c.ID)
			r := monitoringRecord(c, q, []string{in.ListID}, id)
			r.CreatedAt = v.CreatedAt.UTC()
			if err := a.Record(ctx, r, hits); err != nil {
				return res, err
			}
			res.Matched++
			res.Alerts += r.HitCount
		}
		res.Count++
		res.Last = c.ID
		if activity.IsActivity(ctx) {
			activity.RecordHeartbeat(ctx, c.ID)
		}
	}
	return res, nil
}

// RescreenCustomer screens a monitored customer whose data changed against every list in
// service for its organisation, and records the screening (clear or not).
func (a *Activities) RescreenCustomer(ctx context.Context, in scrwf.CustomerRescreenInput) error {
	c, err := a.Store.Customers.Get(ctx, in.OrgID, in.CustomerID)
	if err != nil {
		return err // a customer deleted meanwhile: Temporal gives up after the retries
	}
	if !c.Monitoring || c.UpdatedAt.After(in.ChangedAt) {
		return nil // monitoring turned off, or a later change has its own rescreen
	}
	org, err := a.Store.Orgs.Get(ctx, in.OrgID)
	if err != nil {
		return err
	}
	if !auth.ParseCapabilities(org.Capabilities).Has(auth.ProductScreening) {
		return nil // customers are shared; only organisations with screening are monitored
	}
	lists, err := a.Store.Screening.Lists(ctx, in.OrgID)
	if err != nil {
		return err
	}
	th, err := a.DefaultThreshold(ctx, c.OrgID)
	if err != nil {
		return err
	}
	q := CustomerQuery(c, th)
	hits, err := a.Search(ctx, q, lists)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(lists))
	for _, l := range lists {
		names = append(names, l.ID)
	}
	r := monitoringRecord(c, q, names, ids.DeriveFrom(ids.Screening, in.ChangedAt, "customer", c.ID))
	r.CreatedAt = in.ChangedAt.UTC()
	return a.Record(ctx, r, hits)
}
