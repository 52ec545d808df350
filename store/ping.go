package store

import (
	"context"
	"time"
)

// Ping is the record of the trivial "ping" workflow that proves the path
// API → Temporal → worker → store end to end.
type Ping struct {
	ID          string `gorm:"primaryKey;size:40"`
	OrgID       string `gorm:"size:40;not null;index"`
	Message     string `gorm:"size:500"`
	Status      string `gorm:"size:20;not null"`
	Echo        string `gorm:"size:500"`
	CreatedAt   time.Time
	CompletedAt *time.Time
}

// CreatePing stores a new ping in status pending.
func (s *Orchestration) CreatePing(ctx context.Context, p *Ping) error {
	p.Status = "pending"
	return s.DB.WithContext(ctx).Create(p).Error
}

// GetPing loads a ping of the organisation.
func (s *Orchestration) GetPing(ctx context.Context, orgID, id string) (*Ping, error) {
	return takeInOrg[Ping](s.DB.WithContext(ctx), orgID, id)
}

// CompletePing records the worker's answer; running it twice writes the same thing.
func (s *Orchestration) CompletePing(ctx context.Context, orgID, id, echo string, at time.Time) error {
	return s.DB.WithContext(ctx).Model(&Ping{}).Where("org_id = ? AND id = ?", orgID, id).
		Updates(map[string]any{"status": "succeeded", "echo": echo, "completed_at": at}).Error
}
