package store

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/customers"
)

// Customers is the repository of the shared customer resource (cus_). Every query is scoped
// to the organisation.
type Customers struct{ *handle }

// Customer is one customer of an organisation.
type Customer struct {
	ID       string `gorm:"primaryKey;size:40"`
	OrgID    string `gorm:"size:40;not null;index:ix_customers_org_created,priority:1"`
	Type     string `gorm:"size:16;not null"`
	FullName string `gorm:"size:300;not null"`
	// BirthDate is YYYY-MM-DD, "" when unknown.
	BirthDate   string                 `gorm:"size:10"`
	Nationality string                 `gorm:"size:2"`
	Country     string                 `gorm:"size:2"`
	Identifiers []customers.Identifier `gorm:"serializer:json;type:text"`
	ExternalID  string                 `gorm:"size:200;index"`
	Monitoring  bool                   `gorm:"not null;default:false"`
	Status      string                 `gorm:"size:16;not null;index"`
	CreatedAt   time.Time              `gorm:"index:ix_customers_org_created,priority:2"`
	UpdatedAt   time.Time
}

// Create stores a new customer; a row with c's id already there is left as it is (a retried
// POST, api.NewID).
func (s *Customers) Create(ctx context.Context, c *Customer) error {
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoNothing: true}).Create(c).Error
}

// Get loads a customer of the organisation.
func (s *Customers) Get(ctx context.Context, orgID, id string) (*Customer, error) {
	return takeInOrg[Customer](s.DB.WithContext(ctx), orgID, id)
}

// Save writes a customer's changed fields; a status change happens only along
// customers.Statuses from the status the caller read (StateError otherwise).
func (s *Customers) Save(ctx context.Context, c *Customer, from customers.Status) error {
	c.UpdatedAt = time.Now().UTC()
	res := s.DB.WithContext(ctx).Model(&Customer{}).
		Where("org_id = ? AND id = ? AND status = ?", c.OrgID, c.ID, string(from)).
		Select("type", "full_name", "birth_date", "nationality", "country", "identifiers", "external_id", "monitoring", "status", "updated_at").
		Updates(c)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		cur, err := s.Get(ctx, c.OrgID, c.ID)
		if err != nil {
			return err
		}
		return &StateError{Status: cur.Status}
	}
	return nil
}

var customerColumns = FilterColumns{Text: []string{"id", "full_name", "external_id"}, Status: "status", ExternalID: "external_id"}

// List returns one page of the organisation's customers, newest first; q matches the id, the
// name and the externalId.
func (s *Customers) List(ctx context.Context, orgID string, page Offset, f Filter) ([]Customer, int64, error) {
	return ListOffset[Customer](ctx, s.DB, page, "created_at DESC, id DESC", ForOrg(orgID), f.Scope(customerColumns))
}

// Count counts the organisation's customers by status over every filter but status.
func (s *Customers) Count(ctx context.Context, orgID string, f Filter) (map[string]int64, error) {
	f.Status = nil
	return CountBy[Customer](ctx, s.DB, "status", ForOrg(orgID), f.Scope(customerColumns))
}
