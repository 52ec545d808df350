package store

import (
	"context"
	"time"

	"gorm.io/gorm"
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

// Write stores an audit record, and returns once it is committed. Every API write is audited:
// on SQLite the entries of concurrent requests share one transaction (groupCommit), queued
// with the hot write transactions, instead of one each beside every fraud decision's batch.
func (s *Audit) Write(ctx context.Context, a *AuditLog) error {
	a.CreatedAt = a.CreatedAt.UTC()
	if s.Dialect != "sqlite" {
		return s.DB.WithContext(ctx).Create(a).Error
	}
	job := &auditJob{entry: a, done: make(chan struct{})}
	s.audits.run(ctx, job)
	return job.err
}

// maxAuditBatch caps the audit entries one transaction writes.
const maxAuditBatch = 128

// auditJob is one request's audit entry waiting for, or written by, a batch.
type auditJob struct {
	entry *AuditLog
	err   error
	done  chan struct{}
}

func (j *auditJob) finished() chan struct{} { return j.done }
func (j *auditJob) fail(err error)          { j.err = err }

// writeAudits writes jobs' entries in one insert.
func writeAudits(ctx context.Context, h *handle, jobs []*auditJob) error {
	rows := make([]AuditLog, len(jobs))
	for i, j := range jobs {
		rows[i] = *j.entry
	}
	return h.WriteTx(ctx, func(tx *gorm.DB) error { return insertRows(tx, rows) })
}

// List pages through the organisation's audit log, newest first. f.Q matches the action,
// resource id and request id; From/To bound the time.
func (s *Audit) List(ctx context.Context, orgID string, page CursorPage, f Filter) ([]AuditLog, *Cursor, error) {
	return ListCursor(ctx, s.DB, page, func(a *AuditLog) Cursor { return Cursor{Time: a.CreatedAt, ID: a.ID} },
		ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"action", "resource_id", "request_id"}}))
}
