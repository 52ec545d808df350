package store

import (
	"context"
	"time"
)

// AuditLog records one write: who (organisation, effective user, key or session, calling service),
// what (action, resource) and when, with the request id that traces it.
type AuditLog struct {
	ID                string `gorm:"primaryKey;size:40"`
	OrgID             string `gorm:"size:40;not null;index:ix_audit_org_time,priority:1"`
	Environment       string `gorm:"size:16;not null"`
	UserID            string `gorm:"size:40"`
	APIKeyID          string `gorm:"size:40"`
	SessionID         string `gorm:"size:40"`
	CallerServiceSlug string `gorm:"size:100"`
	// Action names the endpoint: "POST /api/api-keys/:id/rotate".
	Action     string `gorm:"size:200;not null"`
	ResourceID string `gorm:"size:100"`
	RequestID  string `gorm:"size:128"`
	Status     int
	CreatedAt  time.Time `gorm:"index:ix_audit_org_time,priority:2"`
}

// WriteAudit stores an audit record.
func (s *Audit) Write(ctx context.Context, a *AuditLog) error {
	a.CreatedAt = a.CreatedAt.UTC()
	// Every API write is audited: on SQLite the entry queues with the hot write transactions.
	return s.inTurn(ctx, func() error { return s.DB.WithContext(ctx).Create(a).Error })
}

// List pages through the organisation's audit log, newest first. f.Q matches the action,
// resource id and request id; From/To bound the time.
func (s *Audit) List(ctx context.Context, orgID string, page CursorPage, f Filter) ([]AuditLog, *Cursor, error) {
	return ListCursor(ctx, s.DB, page, func(a *AuditLog) Cursor { return Cursor{Time: a.CreatedAt, ID: a.ID} },
		ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"action", "resource_id", "request_id"}}))
}
