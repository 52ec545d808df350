package store

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/ids"
)

// GetDecision loads a decision of the organisation.
func (s *Fraud) GetDecision(ctx context.Context, orgID, id string) (*FraudDecision, error) {
	return takeInOrg[FraudDecision](s.DB.WithContext(ctx), orgID, id)
}

// ListDecisions pages through the organisation's decisions, newest first; status filters
// by outcome, customerId and externalId select one customer's or one reference's.
func (s *Fraud) ListDecisions(ctx context.Context, orgID string, page CursorPage, f Filter) ([]FraudDecision, *Cursor, error) {
	page.TimeColumn = "created_at"
	return ListCursor(ctx, s.DB, page, func(d *FraudDecision) Cursor { return Cursor{Time: d.CreatedAt, ID: d.ID} },
		ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"id", "transaction_id", "customer_id"}, Status: "outcome", ExternalID: "external_id", CustomerID: "customer_id"}))
}

// ReviewDecision records a person's review of a decision waiting for one. The conditional
// write moves only a pending review; otherwise the error is the state conflict.
func (s *Fraud) ReviewDecision(ctx context.Context, orgID, id string, to fraud.ReviewStatus, userID, note string) (*FraudDecision, *Published, error) {
	var out *FraudDecision
	var announced *Published
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		now := time.Now().UTC()
		res := tx.Model(&FraudDecision{}).Where("org_id = ? AND id = ? AND review_status IN ?", orgID, id, fraud.Reviews.SourceNames(to)).
			Updates(map[string]any{"review_status": string(to), "reviewed_by": userID, "review_note": note, "reviewed_at": now})
		if res.Error != nil {
			return res.Error
		}
		d, err := takeInOrg[FraudDecision](tx, orgID, id)
		if err != nil {
			return err
		}
		if res.RowsAffected == 0 {
			return fraud.Reviews.Check(fraud.ReviewStatus(d.ReviewStatus), to)
		}
		out = d
		if to == fraud.ReviewDeclined {
			if announced, err = announceReviewDecline(tx, d, now); err != nil {
				return err
			}
		}
		return CloseAlertsBySource(tx, orgID, cases.SourceFraud, id)
	})
	return out, announced, err
}

// DeviceSessionSeen is a registered device session with its device's history.
type DeviceSessionSeen struct {
	Session             FraudDeviceSession
	FirstSeen, LastSeen time.Time
	Velocity            fraud.Features
}

// deviceSessionFeatures are what POST /api/device-session answers about the device.
var deviceSessionFeatures = func() []fraud.Feature {
	var out []fraud.Feature
	for _, of := range []string{"customer", "ip", "country"} {
		for _, w := range fraud.Windows[:3] {
			out = append(out, fraud.Feature{Dimension: fraud.DimDevice, Metric: fraud.MetricDistinct, Of: of, Window: w})
		}
	}
	return out
}()

// CreateDeviceSession registers a device session: it notes the device's first and last
// sighting and the customer, IP and country seen on it, and returns the device's distinct
// customers, IPs and countries over 5 minutes, an hour and a day.
func (s *Fraud) CreateDeviceSession(ctx context.Context, orgID string, req *fraud.DeviceSessionRequest) (*DeviceSessionSeen, error) {
	var out DeviceSessionSeen
	var resolved entityIDs
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		now := time.Now().UTC().Truncate(time.Millisecond)
		obs := fraud.Observation{At: now, Country: req.Country, Entities: map[fraud.Dimension]string{fraud.DimDevice: req.DeviceID}}
		if req.CustomerID != "" {
			obs.Entities[fraud.DimCustomer] = req.CustomerID
		}
		if req.IP != "" {
			obs.Entities[fraud.DimIP] = req.IP
		}
		var err error
		if resolved, err = s.fraud.lockEntities(tx, entitiesOf(orgID, obs)); err != nil {
			return err
		}
		sess := FraudDeviceSession{ID: ids.NewAt(ids.DeviceSession, now), OrgID: orgID, DeviceID: req.DeviceID, CustomerID: req.CustomerID,
			IP: req.IP, Country: req.Country, Signals: req.Signals, ExternalID: req.ExternalID, CreatedAt: now}
		if err := tx.Create(&sess).Error; err != nil {
			return err
		}
		first, _, err := subjectSeen(tx, orgID, "device", req.DeviceID, now, true)
		if err != nil {
			return err
		}
		// A session is a sighting, not an event: it refreshes distinct values, it adds no counts.
		keyed := resolved.keyed(orgID, obs)
		if err := writeVelocity(tx, keyed, false); err != nil {
			return err
		}
		v, err := readVelocity(tx, keyed, deviceSessionFeatures)
		if err != nil {
			return err
		}
		out = DeviceSessionSeen{Session: sess, FirstSeen: first, LastSeen: now, Velocity: v}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.fraud.rememberEntities(resolved)
	return &out, nil
}
