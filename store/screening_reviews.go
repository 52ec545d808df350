package store

import (
	"context"
	"strconv"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/screening"
)

// ScreeningSuppression remembers a reviewed false positive (screening product): a hit on
// this list entity is not alerted again for this customer while the entity's record keeps
// the hash it had when it was reviewed.
type ScreeningSuppression struct {
	OrgID       string `gorm:"primaryKey;size:40"`
	CustomerID  string `gorm:"primaryKey;size:40"`
	ListID      string `gorm:"primaryKey;size:40"`
	EntityID    string `gorm:"primaryKey;size:128"`
	EntityHash  string `gorm:"size:64;not null"`
	ScreeningID string `gorm:"size:40;not null"`
	HitID       string `gorm:"size:40;not null"`
	ResolvedBy  string `gorm:"size:40;not null"`
	CreatedAt   time.Time
}

// Suppressions returns a customer's remembered false positives.
func (s *Screening) Suppressions(ctx context.Context, orgID, customerID string) (screening.Suppressions, error) {
	out := screening.Suppressions{}
	if customerID == "" {
		return out, nil
	}
	var rows []ScreeningSuppression
	if err := s.DB.WithContext(ctx).Where("org_id = ? AND customer_id = ?", orgID, customerID).Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[screening.SuppressionKey(r.CustomerID, r.ListID, r.EntityID)] = screening.Suppression{
			CustomerID: r.CustomerID, ListID: r.ListID, EntityID: r.EntityID, EntityHash: r.EntityHash}
	}
	return out, nil
}

// HitResolution is a reviewer's decision on one hit of a screening.
type HitResolution struct {
	OrgID, ScreeningID, HitID string
	To                        screening.Decision
	UserID, Comment           string
	At                        time.Time
}

// ResolveHit records a reviewer's decision on a hit, in one transaction and only over the
// revision of the screening it read (a concurrent decision on the same hit is refused along
// screening.HitReviews, never overwritten). A false positive on a customer's screening is
// remembered as a suppression; either decision closes the hit's open alert.
func (s *Screening) ResolveHit(ctx context.Context, in HitResolution) (*ScreeningRecord, error) {
	var out *ScreeningRecord
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		r, err := takeInOrg[ScreeningRecord](tx, in.OrgID, in.ScreeningID)
		if err != nil {
			return err
		}
		i := hitIndex(r.Hits, in.HitID)
		if i < 0 {
			return ErrNotFound
		}
		hit := &r.Hits[i]
		if err := screening.HitReviews.Check(hit.Review(), in.To); err != nil {
			return err
		}
		at := in.At.UTC()
		hit.Decision, hit.Comment, hit.ResolvedBy, hit.ResolvedAt = in.To, in.Comment, in.UserID, &at
		res := tx.Model(&ScreeningRecord{}).Where("org_id = ? AND id = ? AND revision = ?", in.OrgID, r.ID, r.Revision).
			Updates(map[string]any{"hits": jsonText(r.Hits), "revision": r.Revision + 1})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			// Another decision landed since the read: it is the state the caller conflicts with.
			cur, err := takeInOrg[ScreeningRecord](tx, in.OrgID, in.ScreeningID)
			if err != nil {
				return err
			}
			if j := hitIndex(cur.Hits, in.HitID); j >= 0 {
				return screening.HitReviews.Check(cur.Hits[j].Review(), in.To)
			}
			return ErrNotFound
		}
		r.Revision++
		if in.To == screening.FalsePositive && r.CustomerID != "" {
			sup := ScreeningSuppression{OrgID: in.OrgID, CustomerID: r.CustomerID, ListID: hit.ListID, EntityID: hit.EntityID,
				EntityHash: hit.EntityHash, ScreeningID: r.ID, HitID: hit.ID, ResolvedBy: in.UserID, CreatedAt: at}
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&sup).Error; err != nil {
				return err
			}
		}
		key := cases.DedupeKey(cases.SourceScreening, r.ID, AlertSubject(hit.ListID, hit.EntityID))
		if err := tx.Model(&Alert{}).Where("org_id = ? AND dedupe_key = ? AND status IN ?", in.OrgID, key,
			cases.Alerts.SourceNames(cases.AlertClosed)).
			Updates(map[string]any{"status": string(cases.AlertClosed), "updated_at": at}).Error; err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

// AlertSubject names a list entity as the subject of a screening alert.
func AlertSubject(listID, entityID string) string { return listID + "/" + entityID }

func hitIndex(hits []ScreeningHit, id string) int {
	for i := range hits {
		if hits[i].ID == id {
			return i
		}
	}
	return -1
}

// RecordScreening stores a screening and, when it names a customer, raises one alert per
// hit that is neither suppressed nor resolved, in one transaction: a screening never exists
// without its alerts. Alerts already raised for the same screening and entity are found, not
// doubled (an activity retried). The events announce returns for the screening and the
// alerts it raised are written in the same transaction (PublishEventIn), so neither is ever
// lost; their ids derive from the screening and the alerts, so a retry writes none twice.
// It returns the alerts this call raised and the events, their first attempts still to make.
func (s *Screening) RecordScreening(ctx context.Context, r *ScreeningRecord, summary func(ScreeningHit) string,
	announce func(raised []*Alert) ([]events.Envelope, error)) ([]*Alert, []*Published, error) {
	var raised []*Alert
	var published []*Published
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		raised, published = nil, nil // a retried transaction starts again
		if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoNothing: true}).Create(r).Error; err != nil {
			return err
		}
		if err := raiseScreeningAlerts(tx, r, summary, &raised); err != nil {
			return err
		}
		envs, err := announce(raised)
		if err != nil {
			return err
		}
		for _, env := range envs {
			p, err := PublishEventIn(tx, env)
			if err != nil {
				return err
			}
			published = append(published, p)
		}
		return nil
	})
	return raised, published, err
}

// raiseScreeningAlerts raises, for a screening that names a customer, one alert per hit that
// is neither suppressed nor resolved, adding those it created to raised.
func raiseScreeningAlerts(tx *gorm.DB, r *ScreeningRecord, summary func(ScreeningHit) string, raised *[]*Alert) error {
	if r.CustomerID == "" {
		return nil
	}
	for _, h := range r.Hits {
		if h.Suppressed || h.Review() != screening.Unresolved {
			continue
		}
		a := &Alert{OrgID: r.OrgID, Source: string(cases.SourceScreening), SourceRef: r.ID,
			Subject: AlertSubject(h.ListID, h.EntityID), CustomerID: r.CustomerID, Score: h.Score, Summary: summary(h),
			Details: map[string]any{"screeningId": r.ID, "hitId": h.ID, "listId": h.ListID, "entityId": h.EntityID,
				"name": h.Name, "matchedName": h.MatchedName, "trigger": r.Trigger}}
		stored, created, err := RaiseAlert(tx, a)
		if err != nil {
			return err
		}
		if created {
			*raised = append(*raised, stored)
		}
	}
	return nil
}

// NewScreeningHits turns the engine's hits into stored ones (ids hit_1, hit_2, … by rank),
// marking those a customer's remembered false positives suppress; unsuppressed is how many
// are left to review.
func NewScreeningHits(hits []screening.Hit, customerID string, sup screening.Suppressions) (out []ScreeningHit, unsuppressed int) {
	keep, _ := sup.Filter(customerID, hits)
	kept := make(map[string]bool, len(keep))
	for _, h := range keep {
		kept[h.ListID+"\x00"+h.EntityID] = true
	}
	for i, h := range hits {
		sh := ScreeningHit{ID: "hit_" + strconv.Itoa(i+1), ListID: h.ListID, EntityID: h.EntityID, EntityHash: screening.EntityHash(h.Entity),
			Name: h.Name, MatchedName: h.MatchedName, Score: h.Score, Explanation: h.Explanation, Suppressed: !kept[h.ListID+"\x00"+h.EntityID]}
		if !sh.Suppressed {
			unsuppressed++
		}
		out = append(out, sh)
	}
	return out, unsuppressed
}
