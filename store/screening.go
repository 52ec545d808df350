package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/screening"
)

// Screening is the screening product's repository: sanctions lists and their versions,
// and screenings with their hits.
type Screening struct{ *handle }

// ScreeningList is a list an organisation screens against (lst_ id): its own list, managed
// through the API. The version in service is the one with the highest number.
type ScreeningList struct {
	ID          string `gorm:"primaryKey;size:40"`
	OrgID       string `gorm:"size:40;not null;index"`
	Name        string `gorm:"size:200;not null"`
	Kind        string `gorm:"size:32;not null"`
	Version     int    `gorm:"not null"`
	ContentHash string `gorm:"size:64;not null"`
	EntityCount int    `gorm:"not null"`
	CreatedAt   time.Time
	RefreshedAt time.Time
}

// ScreeningListVersion is one version of a list: its entities and the delta to the previous one.
type ScreeningListVersion struct {
	ListID      string             `gorm:"primaryKey;size:40"`
	Version     int                `gorm:"primaryKey;autoIncrement:false"`
	OrgID       string             `gorm:"size:40;not null;index"`
	ContentHash string             `gorm:"size:64;not null"`
	Entities    []screening.Entity `gorm:"serializer:json;type:text"`
	Delta       screening.Delta    `gorm:"serializer:json;type:text"`
	CreatedAt   time.Time
}

// ScreeningHit is a stored hit of a screening (hit ids are unique within their screening).
type ScreeningHit struct {
	ID          string                `json:"id"`
	ListID      string                `json:"listId"`
	EntityID    string                `json:"entityId"`
	EntityHash  string                `json:"entityHash"`
	Name        string                `json:"name"`
	MatchedName string                `json:"matchedName"`
	Score       float64               `json:"score"`
	Explanation screening.Explanation `json:"explanation"`
	// Suppressed marks a hit on an entity the customer's reviewer already found a false
	// positive, its list record unchanged: kept for the record, not counted, not alerted.
	Suppressed bool `json:"suppressed,omitempty"`
	// Decision is the hit's review (screening.HitReviews); "" reads as unresolved.
	Decision   screening.Decision `json:"decision,omitempty"`
	Comment    string             `json:"comment,omitempty"`
	ResolvedBy string             `json:"resolvedBy,omitempty"`
	ResolvedAt *time.Time         `json:"resolvedAt,omitempty"`
}

// Review is the hit's review state, unresolved when none was recorded.
func (h *ScreeningHit) Review() screening.Decision {
	if h.Decision == "" {
		return screening.Unresolved
	}
	return h.Decision
}

// ScreeningRecord is one screening (scr_ id): what was asked and what was found.
type ScreeningRecord struct {
	ID         string         `gorm:"primaryKey;size:40"`
	OrgID      string         `gorm:"size:40;not null;index"`
	CustomerID string         `gorm:"size:40"`
	ExternalID string         `gorm:"size:128"`
	FullName   string         `gorm:"type:text;not null"`
	BirthDate  string         `gorm:"size:10"`
	Country    string         `gorm:"size:2"`
	EntityType string         `gorm:"size:16"`
	Lists      []string       `gorm:"serializer:json;type:text"`
	Threshold  float64        `gorm:"not null"`
	Status     string         `gorm:"size:20;not null"`
	HitCount   int            `gorm:"not null"`
	Hits       []ScreeningHit `gorm:"serializer:json;type:text"`
	// Trigger says what ran the screening: api, or monitoring (a list change or a customer change).
	Trigger string `gorm:"size:16;not null;default:'api'"`
	// Revision counts the writes after creation; a review writes only over the revision it read.
	Revision  int `gorm:"not null;default:0"`
	CreatedAt time.Time
}

// TableName keeps the table named after the resource.
func (ScreeningRecord) TableName() string { return "screenings" }

// ErrListUnchanged is returned when a new version would hold the same content as the current one.
var ErrListUnchanged = errors.New("list content unchanged")

// CreateList stores a new list with its first version; announce also writes that version's
// screening.list_updated events (a refreshed source's first version), returned to deliver.
func (s *Screening) CreateList(ctx context.Context, l *ScreeningList, entities []screening.Entity, announce bool) ([]*Published, error) {
	l.Version, l.ContentHash, l.EntityCount = 1, screening.Hash(entities), len(entities)
	v := &ScreeningListVersion{ListID: l.ID, Version: 1, OrgID: l.OrgID, ContentHash: l.ContentHash, Entities: entities,
		Delta: screening.Diff(nil, entities), CreatedAt: l.CreatedAt}
	var published []*Published
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(l).Error; err != nil {
			return err
		}
		if err := tx.Create(v).Error; err != nil {
			return err
		}
		if !announce {
			return nil
		}
		var err error
		published, err = announceListVersion(tx, l, v)
		return err
	})
	return published, err
}

// PlatformOrg is the organisation of the platform's lists (config screening.sources): every
// organisation screens against them, none can change them.
const PlatformOrg = ""

// Lists returns every list the organisation screens against (its own and the platform's),
// oldest first.
func (s *Screening) Lists(ctx context.Context, orgID string) ([]ScreeningList, error) {
	var rows []ScreeningList
	err := s.DB.WithContext(ctx).Scopes(orgOrPlatform(orgID)).Order("created_at, id").Find(&rows).Error
	return rows, err
}

// ListLists returns one page of the lists the organisation screens against, newest first;
// f.Q matches the name.
func (s *Screening) ListLists(ctx context.Context, orgID string, page Offset, f Filter) ([]ScreeningList, int64, error) {
	return ListOffset[ScreeningList](ctx, s.DB, page, "created_at DESC, id DESC", orgOrPlatform(orgID), f.Scope(FilterColumns{Text: []string{"name"}}))
}

// GetList loads a list the organisation screens against (its own or the platform's).
func (s *Screening) GetList(ctx context.Context, orgID, id string) (*ScreeningList, error) {
	var l ScreeningList
	if err := s.DB.WithContext(ctx).Scopes(orgOrPlatform(orgID)).Where("id = ?", id).Take(&l).Error; err != nil {
		return nil, NotFound(err)
	}
	return &l, nil
}

func orgOrPlatform(orgID string) Scope {
	return func(db *gorm.DB) *gorm.DB { return db.Where("org_id IN ?", []string{orgID, PlatformOrg}) }
}

// ListVersion loads the version in service of a list of the organisation.
func (s *Screening) ListVersion(ctx context.Context, orgID, listID string, version int) (*ScreeningListVersion, error) {
	var v ScreeningListVersion
	if err := s.DB.WithContext(ctx).Where("org_id = ? AND list_id = ? AND version = ?", orgID, listID, version).Take(&v).Error; err != nil {
		return nil, NotFound(err)
	}
	return &v, nil
}

// CreateScreening stores a screening.
func (s *Screening) CreateScreening(ctx context.Context, r *ScreeningRecord) error {
	return s.DB.WithContext(ctx).Create(r).Error
}

// GetScreening loads a screening of the organisation.
func (s *Screening) GetScreening(ctx context.Context, orgID, id string) (*ScreeningRecord, error) {
	return takeInOrg[ScreeningRecord](s.DB.WithContext(ctx), orgID, id)
}

// ListScreenings returns one page of the organisation's screenings, newest first.
func (s *Screening) ListScreenings(ctx context.Context, orgID string, page CursorPage, f Filter) ([]ScreeningRecord, *Cursor, error) {
	page.TimeColumn = "created_at"
	return ListCursor(ctx, s.DB, page, func(r *ScreeningRecord) Cursor { return Cursor{Time: r.CreatedAt, ID: r.ID} },
		ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"id", "full_name", "external_id"}, Status: "status",
			CustomerID: "customer_id", ExternalID: "external_id"}))
}
