package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
)

// Alerts is the repository of alerts (alr_), the one intake of the cases product: screening
// and fraud raise them here, cases gathers them. Every query is scoped to the organisation.
type Alerts struct{ *handle }

// Alert is one alert of an organisation. Source and SourceRef say what raised it (a
// screening scr_ or a decision dec_); Subject is what it is about inside that record (the
// list entity a hit matched), "" when the record is the subject.
type Alert struct {
	ID         string `gorm:"primaryKey;size:40"`
	OrgID      string `gorm:"size:40;not null;index:ix_alerts_org_created,priority:1;uniqueIndex:ux_alerts_org_dedupe,priority:1"`
	Source     string `gorm:"size:16;not null"`
	SourceRef  string `gorm:"size:40;not null;index"`
	Subject    string `gorm:"size:200"`
	DedupeKey  string `gorm:"size:300;not null;uniqueIndex:ux_alerts_org_dedupe,priority:2"`
	CustomerID string `gorm:"size:128;index"`
	Score      float64
	// Summary is one line for a person ("OFAC SDN: Ivan Petrov, 0.93"; "review: R_VELOCITY").
	Summary     string         `gorm:"size:500"`
	ReasonCodes []string       `gorm:"serializer:json;type:text"`
	Details     map[string]any `gorm:"serializer:json;type:text"`
	Status      string         `gorm:"size:16;not null;index"`
	CaseID      string         `gorm:"size:40;index"`
	CreatedAt   time.Time      `gorm:"index:ix_alerts_org_created,priority:2"`
	UpdatedAt   time.Time
}

// Raise stores an alert unless one with the same (organisation, DedupeKey) exists, and
// returns the stored one with created=false in that case. A new alert is open.
func (s *Alerts) Raise(ctx context.Context, a *Alert) (stored *Alert, created bool, err error) {
	err = s.Tx(ctx, func(tx *gorm.DB) error {
		stored, created, err = RaiseAlert(tx, a)
		return err
	})
	return stored, created, err
}

// RaiseAlert is Raise inside the caller's transaction, so a record that needs a person
// (a fraud decision) never exists without its alert.
func RaiseAlert(tx *gorm.DB, a *Alert) (*Alert, bool, error) {
	if err := newAlert(a); err != nil {
		return nil, false, err
	}
	res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "org_id"}, {Name: "dedupe_key"}}, DoNothing: true}).Create(a)
	if res.Error != nil {
		return nil, false, res.Error
	}
	if res.RowsAffected == 1 {
		return a, true, nil
	}
	var cur Alert
	if err := tx.Where("org_id = ? AND dedupe_key = ?", a.OrgID, a.DedupeKey).Take(&cur).Error; err != nil {
		return nil, false, err
	}
	return &cur, false, nil
}

// newAlert completes a new alert: its id, times, dedupe key and first status.
func newAlert(a *Alert) error {
	if a.OrgID == "" || a.Source == "" || a.SourceRef == "" {
		return errors.New("store: alert needs an organisation, a source and a source record")
	}
	now := time.Now().UTC()
	if a.CreatedAt.IsZero() {
		a.CreatedAt = now
	}
	a.UpdatedAt = now
	if a.ID == "" {
		a.ID = ids.NewAt(ids.Alert, a.CreatedAt)
	}
	a.DedupeKey = cases.DedupeKey(cases.AlertSource(a.Source), a.SourceRef, a.Subject)
	a.Status = string(cases.Alerts.Initial())
	return nil
}

// raiseNewAlerts stores alerts raised by records the caller's transaction creates (a batch's
// decisions) in one insert: no alert can share their dedupe keys, so, unlike RaiseAlert, there
// is none to look for; one that did would fail the transaction.
func raiseNewAlerts(tx *gorm.DB, alerts []Alert) error {
	for i := range alerts {
		if err := newAlert(&alerts[i]); err != nil {
			return err
		}
	}
	return insertRows(tx, alerts)
}

// Get loads an alert of the organisation.
func (s *Alerts) Get(ctx context.Context, orgID, id string) (*Alert, error) {
	return takeInOrg[Alert](s.DB.WithContext(ctx), orgID, id)
}

// CloseAlertsBySource closes the open or assigned alerts a record raised (a reviewed decision).
func CloseAlertsBySource(tx *gorm.DB, orgID string, source cases.AlertSource, ref string) error {
	return tx.Model(&Alert{}).
		Where("org_id = ? AND source = ? AND source_ref = ? AND status IN ?", orgID, string(source), ref,
			cases.Alerts.SourceNames(cases.AlertClosed)).
		Updates(map[string]any{"status": string(cases.AlertClosed), "updated_at": time.Now().UTC()}).Error
}
