package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"gorm.io/gorm"

	idv "github.com/svcplatform/svc/internal/identity"
)

// Identity is the identity verification product's repository: verifications (idv_) and
// their attempts (att_). The claimed data, the images' blob keys and the extracted data are
// personal data: every query is scoped to the organisation, and Purge deletes the attempts'
// part once the retention has passed. (The accounts' organisations and users are in
// identity.go: "identity" there is the platform's, not this product.)
type Identity struct{ *handle }

// IdentityVerification is one person's verification under a policy.
type IdentityVerification struct {
	ID         string      `gorm:"primaryKey;size:40"`
	OrgID      string      `gorm:"size:40;not null;index:ix_identity_verifications_org_created,priority:1"`
	CustomerID string      `gorm:"size:40;index"`
	Reference  string      `gorm:"size:200"`
	ExternalID string      `gorm:"size:200;index"`
	Status     string      `gorm:"size:32;not null;index"`
	Claimed    idv.Claimed `gorm:"serializer:json;type:text;not null"`
	Policy     idv.Policy  `gorm:"serializer:json;type:text;not null"`
	// Attempts is how many attempts were submitted.
	Attempts int `gorm:"not null"`
	// Reasons are the reason codes of the last decision.
	Reasons    []string `gorm:"serializer:json;type:text"`
	ReviewedBy string   `gorm:"size:40"`
	ReviewedAt *time.Time
	// ReviewComment is the reviewer's note on the decision.
	ReviewComment string    `gorm:"size:2000"`
	ExpiresAt     time.Time `gorm:"not null"`
	CreatedAt     time.Time `gorm:"index:ix_identity_verifications_org_created,priority:2"`
	UpdatedAt     time.Time
	// CompletedAt is set when the verification reaches verified, rejected or expired.
	CompletedAt *time.Time
}

// IdentityAttempt is one submitted document of a verification and what its checks found.
type IdentityAttempt struct {
	ID             string `gorm:"primaryKey;size:40"`
	OrgID          string `gorm:"size:40;not null;index:ix_identity_attempts_org_created,priority:1"`
	VerificationID string `gorm:"size:40;not null;index"`
	CustomerID     string `gorm:"size:40;index"`
	Number         int    `gorm:"not null"`
	Status         string `gorm:"size:20;not null;index"`
	// FrontKey and BackKey name the images in the blob store ("" once purged, or no back).
	FrontKey string `gorm:"size:100"`
	BackKey  string `gorm:"size:100"`
	// Document is what the documents engine read (nil until read, and once purged).
	Document    *idv.Document     `gorm:"serializer:json;type:text"`
	Checks      []idv.CheckResult `gorm:"serializer:json;type:text"`
	Outcome     string            `gorm:"size:32"`
	Reasons     []string          `gorm:"serializer:json;type:text"`
	CreatedAt   time.Time         `gorm:"index:ix_identity_attempts_org_created,priority:2"`
	CompletedAt *time.Time        `gorm:"index"`
	PurgedAt    *time.Time
}

// ErrNoAttemptsLeft is returned when a verification has used all its policy's attempts.
var ErrNoAttemptsLeft = idv.ErrNoAttemptsLeft

// CreateVerification stores a new verification waiting for input.
func (s *Identity) CreateVerification(ctx context.Context, v *IdentityVerification) error {
	v.Status = string(idv.StatusRequiresInput)
	return s.DB.WithContext(ctx).Create(v).Error
}

// GetVerification loads a verification of the organisation.
func (s *Identity) GetVerification(ctx context.Context, orgID, id string) (*IdentityVerification, error) {
	return takeInOrg[IdentityVerification](s.DB.WithContext(ctx), orgID, id)
}

// ListVerifications returns one page of the organisation's verifications, newest first.
func (s *Identity) ListVerifications(ctx context.Context, orgID string, page Offset, f Filter) ([]IdentityVerification, int64, error) {
	return ListOffset[IdentityVerification](ctx, s.DB, page, "created_at DESC, id DESC", ForOrg(orgID),
		f.Scope(FilterColumns{Text: []string{"reference"}, Status: "status", CustomerID: "customer_id", ExternalID: "external_id"}))
}

// SubmitAttempt stores an attempt and moves its verification to processing, in one
// transaction and only from a state that accepts input, before the deadline and while
// attempts remain: a concurrent second attempt finds the verification processing (a
// *StateError). a.Number is set.
func (s *Identity) SubmitAttempt(ctx context.Context, a *IdentityAttempt, now time.Time) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		v, err := takeInOrg[IdentityVerification](tx, a.OrgID, a.VerificationID)
		if err != nil {
			return err
		}
		if err := idv.Table.Check(idv.Status(v.Status), idv.StatusProcessing); err != nil {
			return &StateError{Status: v.Status}
		}
		if v.Attempts >= v.Policy.WithDefaults().MaxAttempts {
			return ErrNoAttemptsLeft
		}
		res := tx.Model(&IdentityVerification{}).
			Where("org_id = ? AND id = ? AND status IN ? AND attempts = ? AND expires_at > ?",
				a.OrgID, a.VerificationID, idv.Table.Sources(idv.StatusProcessing), v.Attempts, now.UTC()).
			Updates(map[string]any{"status": string(idv.StatusProcessing), "attempts": v.Attempts + 1, "updated_at": now.UTC()})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			if !now.Before(v.ExpiresAt) {
				return &StateError{Status: string(idv.StatusExpired)}
			}
			return &StateError{Status: string(idv.StatusProcessing)} // another attempt won the race
		}
		a.Number, a.CustomerID = v.Attempts+1, v.CustomerID
		a.Status = string(idv.AttemptProcessing)
		return tx.Create(a).Error
	})
}

// GetAttempt loads an attempt of the organisation.
func (s *Identity) GetAttempt(ctx context.Context, orgID, id string) (*IdentityAttempt, error) {
	return takeInOrg[IdentityAttempt](s.DB.WithContext(ctx), orgID, id)
}

// AttemptsOf lists a verification's attempts in order.
func (s *Identity) AttemptsOf(ctx context.Context, orgID, verificationID string) ([]IdentityAttempt, error) {
	var out []IdentityAttempt
	err := s.DB.WithContext(ctx).Where("org_id = ? AND verification_id = ?", orgID, verificationID).Order("number").Find(&out).Error
	return out, err
}

// ListAttempts returns one page of the organisation's attempts feed, newest first.
func (s *Identity) ListAttempts(ctx context.Context, orgID string, page CursorPage, f Filter) ([]IdentityAttempt, *Cursor, error) {
	return ListCursor(ctx, s.DB, page, func(a *IdentityAttempt) Cursor { return Cursor{Time: a.CreatedAt, ID: a.ID} },
		ForOrg(orgID), f.Scope(FilterColumns{Status: "status", CustomerID: "customer_id"}))
}

// SaveDocument records what the engine read from an attempt's images.
func (s *Identity) SaveDocument(ctx context.Context, orgID, attemptID string, d idv.Document) error {
	return s.DB.WithContext(ctx).Model(&IdentityAttempt{}).
		Where("org_id = ? AND id = ? AND status = ?", orgID, attemptID, idv.AttemptProcessing).
		Update("document", jsonText(d)).Error
}

// CompleteAttempt records an attempt's checks and outcome and moves its verification from
// processing to the outcome's state; applied is false when either had already moved (a
// retried write).
func (s *Identity) CompleteAttempt(ctx context.Context, orgID, attemptID string, status idv.AttemptStatus, checks []idv.CheckResult, o idv.Outcome, now time.Time) (applied bool, err error) {
	err = s.Tx(ctx, func(tx *gorm.DB) error {
		a, err := takeInOrg[IdentityAttempt](tx, orgID, attemptID)
		if err != nil {
			return err
		}
		if a.Status != string(idv.AttemptProcessing) {
			applied = a.Outcome == string(o.Status)
			return nil
		}
		now := now.UTC()
		if err := tx.Model(&IdentityAttempt{}).Where("org_id = ? AND id = ?", orgID, attemptID).Updates(map[string]any{
			"status": string(status), "checks": jsonText(checks), "outcome": string(o.Status), "reasons": jsonColumn(o.Reasons), "completed_at": now,
		}).Error; err != nil {
			return err
		}
		cols := map[string]any{"status": string(o.Status), "reasons": jsonColumn(o.Reasons), "updated_at": now}
		if idv.Status(o.Status).Terminal() {
			cols["completed_at"] = now
		}
		res := tx.Model(&IdentityVerification{}).
			Where("org_id = ? AND id = ? AND status = ?", orgID, a.VerificationID, idv.StatusProcessing).Updates(cols)
		if res.Error != nil {
			return res.Error
		}
		applied = res.RowsAffected == 1
		if !applied {
			return errors.New("store: verification is not processing")
		}
		return nil
	})
	return applied, err
}

// ExpireVerification moves a verification still waiting for input past its deadline to
// expired; false when it was not waiting (an attempt arrived first) or not yet due.
func (s *Identity) ExpireVerification(ctx context.Context, orgID, id string, now time.Time) (bool, error) {
	now = now.UTC()
	res := s.DB.WithContext(ctx).Model(&IdentityVerification{}).
		Where("org_id = ? AND id = ? AND status IN ? AND expires_at <= ?", orgID, id, idv.Table.Sources(idv.StatusExpired), now).
		Updates(map[string]any{"status": string(idv.StatusExpired), "updated_at": now, "completed_at": now})
	return res.RowsAffected == 1, res.Error
}

// ReviewVerification applies a reviewer's decision to a verification in review (a
// conditional write); a retried write of the same decision succeeds again.
func (s *Identity) ReviewVerification(ctx context.Context, orgID, id string, to idv.Status, reviewer, comment string, now time.Time) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		v, err := takeInOrg[IdentityVerification](tx, orgID, id)
		if err != nil {
			return err
		}
		if v.Status == string(to) && v.ReviewedBy == reviewer && v.ReviewedAt != nil {
			return nil
		}
		if err := idv.Table.Check(idv.Status(v.Status), to); err != nil || v.Status != string(idv.StatusReview) {
			return &StateError{Status: v.Status}
		}
		if to == idv.StatusResubmissionRequested && v.Attempts >= v.Policy.WithDefaults().MaxAttempts {
			return ErrNoAttemptsLeft
		}
		now := now.UTC()
		cols := map[string]any{"status": string(to), "reviewed_by": reviewer, "reviewed_at": now, "review_comment": comment, "updated_at": now}
		if to.Terminal() {
			cols["completed_at"] = now
		}
		return tx.Model(&IdentityVerification{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, idv.StatusReview).Updates(cols).Error
	})
}

// PurgeCandidates lists up to limit attempts completed before before whose personal data is
// still stored, oldest first (across organisations: the retention job is the platform's).
func (s *Identity) PurgeCandidates(ctx context.Context, before time.Time, limit int) ([]IdentityAttempt, error) {
	var out []IdentityAttempt
	err := s.DB.WithContext(ctx).Where("completed_at < ? AND purged_at IS NULL", before.UTC()).
		Order("completed_at").Limit(limit).Find(&out).Error
	return out, err
}

// MarkPurged forgets an attempt's images and extracted data once the blobs are deleted.
func (s *Identity) MarkPurged(ctx context.Context, orgID, attemptID string, now time.Time) error {
	return s.DB.WithContext(ctx).Model(&IdentityAttempt{}).Where("org_id = ? AND id = ?", orgID, attemptID).
		Updates(map[string]any{"front_key": "", "back_key": "", "document": nil, "purged_at": now.UTC()}).Error
}

// jsonText is v as the JSON text of a serializer:json column (Updates with a map bypass the
// serializer).
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// DeleteUnstarted removes a verification still waiting for its first attempt: the API stored it
// but could not start its workflow.
func (s *Identity) DeleteUnstarted(ctx context.Context, orgID, id string) error {
	return s.DB.WithContext(ctx).Where("org_id = ? AND id = ? AND status = ? AND attempts = 0", orgID, id, idv.StatusRequiresInput).
		Delete(&IdentityVerification{}).Error
}

// BlobInUse reports whether anything but the attempt except still refers to the blob key
// (blobInUse: a document, another attempt, an analysis).
func (s *Identity) BlobInUse(ctx context.Context, key, except string) (bool, error) {
	return blobInUse(ctx, s.DB, key, except)
}
