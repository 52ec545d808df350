package chaos

import (
	"context"
	"fmt"

	"github.com/svcplatform/svc/deploy/cluster"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/webhook"
)

// checkEndStates reads the application database and the receiver's counts and lists what
// did not reach its end state and what was done more than once.
func checkEndStates(ctx context.Context, st *store.Store, c *cluster.Cluster, l *loadRun) Report {
	var r Report
	db := st.DB.WithContext(ctx)
	l.mu.Lock()
	r.Lost = append(r.Lost, l.failures...)
	l.mu.Unlock()

	execs := l.executions()
	r.Executions = len(execs)
	var rows []store.Execution
	if err := db.Where("org_id = ?", c.OrgID).Find(&rows).Error; err != nil {
		r.Lost = append(r.Lost, "read executions: "+err.Error())
		return r
	}
	byID := map[string]store.Execution{}
	perExternal := map[string]int{}
	for _, e := range rows {
		byID[e.ID] = e
		if e.ExternalID != "" {
			perExternal[e.ExternalID]++
		}
	}
	for id, slug := range execs {
		e, ok := byID[id]
		switch {
		case !ok:
			r.Lost = append(r.Lost, fmt.Sprintf("execution %s (%s): no row", id, slug))
		case e.Status != "succeeded":
			r.Lost = append(r.Lost, fmt.Sprintf("execution %s (%s): %s %s", id, slug, e.Status, e.ErrorMessage))
		}
	}
	for ext, n := range perExternal {
		if n > 1 {
			r.Duplicates = append(r.Duplicates, fmt.Sprintf("%d executions with externalId %s", n, ext))
		}
	}

	var approvals []store.Approval
	if err := db.Where("org_id = ?", c.OrgID).Find(&approvals).Error; err == nil {
		perStep := map[string]int{}
		for _, a := range approvals {
			perStep[a.StepID]++
			if a.Status == "approved" {
				r.Approvals++
			}
			if a.Status != "approved" && byID[a.ExecutionID].Status == "succeeded" {
				r.Duplicates = append(r.Duplicates, fmt.Sprintf("approval %s is %s on a succeeded execution", a.ID, a.Status))
			}
		}
		for step, n := range perStep {
			if n > 1 {
				r.Duplicates = append(r.Duplicates, fmt.Sprintf("%d approvals for step %s", n, step))
			}
		}
	}

	docs := l.documents()
	r.Documents = len(docs)
	var drows []store.Document
	if err := db.Where("org_id = ?", c.OrgID).Find(&drows).Error; err == nil {
		byDoc := map[string]store.Document{}
		perExt := map[string]int{}
		for _, d := range drows {
			byDoc[d.ID] = d
			if d.ExternalID != "" {
				perExt[d.ExternalID]++
			}
		}
		for _, id := range docs {
			d, ok := byDoc[id]
			switch {
			case !ok:
				r.Lost = append(r.Lost, "document "+id+": no row")
			case d.Status != "extracted" && d.Status != "requires_review":
				r.Lost = append(r.Lost, fmt.Sprintf("document %s: %s %s", id, d.Status, d.ErrorMessage))
			}
		}
		for ext, n := range perExt {
			if n > 1 {
				r.Duplicates = append(r.Duplicates, fmt.Sprintf("%d documents with externalId %s", n, ext))
			}
		}
	}

	// Deliveries still kept (the newest store.DeliveryHistory per subscription) must all be
	// delivered; every event of the organisation must have reached the receiver, under its id.
	var deliveries []store.Delivery
	if err := db.Where("org_id = ?", c.OrgID).Find(&deliveries).Error; err == nil {
		r.Deliveries = len(deliveries)
		perEvent := map[string]int{}
		for _, d := range deliveries {
			perEvent[d.EventID]++
			if d.Status != webhook.StatusDelivered {
				r.Lost = append(r.Lost, fmt.Sprintf("delivery %s of %s (%s): %s after %d attempts", d.ID, d.EventID, d.EventName, d.Status, d.Attempts))
			}
		}
		for ev, n := range perEvent {
			if n > 1 {
				r.Duplicates = append(r.Duplicates, fmt.Sprintf("%d deliveries of event %s to one subscription", n, ev))
			}
		}
	}
	var evs []store.Event
	if err := db.Select("id", "name").Where("org_id = ? AND name IN ?", c.OrgID, subscribed).Find(&evs).Error; err == nil {
		r.Events = len(evs)
		received := c.Receiver.Counts()
		known := map[string]bool{}
		for _, e := range evs {
			known[e.ID] = true
			if received[e.ID] == 0 {
				r.Lost = append(r.Lost, fmt.Sprintf("event %s (%s) never reached the receiver", e.ID, e.Name))
			}
		}
		for ev, n := range received {
			if !known[ev] {
				r.Duplicates = append(r.Duplicates, "received event "+ev+", which the store never recorded")
			}
			if n > 1 {
				r.Redelivered++
			}
		}
	}
	return r
}
