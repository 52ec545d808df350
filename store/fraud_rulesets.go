package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/ids"
)

// ErrAppliesToTaken is a rule set for a subject that already has one.
var ErrAppliesToTaken = errors.New("the organisation already has a rule set for this subject")

// CreateRuleSet saves a rule set without versions.
func (s *Fraud) CreateRuleSet(ctx context.Context, orgID, name, appliesTo, createdBy string) (*FraudRuleSet, error) {
	now := time.Now().UTC()
	rs := &FraudRuleSet{ID: ids.NewAt(ids.RuleSet, now), OrgID: orgID, Name: name, AppliesTo: appliesTo, CreatedBy: createdBy, CreatedAt: now, UpdatedAt: now}
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&FraudRuleSet{}).Where("org_id = ? AND applies_to = ?", orgID, appliesTo).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrAppliesToTaken
		}
		return tx.Create(rs).Error
	})
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// GetRuleSet loads a rule set of the organisation (ErrNotFound otherwise).
func (s *Fraud) GetRuleSet(ctx context.Context, orgID, id string) (*FraudRuleSet, error) {
	return takeInOrg[FraudRuleSet](s.DB.WithContext(ctx), orgID, id)
}

// RuleSetFor is the organisation's rule set for a subject ("transaction" or an event
// type), or ErrNotFound.
func (s *Fraud) RuleSetFor(ctx context.Context, orgID, appliesTo string) (*FraudRuleSet, error) {
	var rs FraudRuleSet
	if err := hotReads(s.DB.WithContext(ctx)).Where("org_id = ? AND applies_to = ?", orgID, appliesTo).Take(&rs).Error; err != nil {
		return nil, NotFound(err)
	}
	return &rs, nil
}

// ListRuleSets pages through the organisation's rule sets, newest first.
func (s *Fraud) ListRuleSets(ctx context.Context, orgID string, page Offset, f Filter) ([]FraudRuleSet, int64, error) {
	return ListOffset[FraudRuleSet](ctx, s.DB, page, "created_at DESC, id DESC", ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"name", "applies_to"}}))
}

// AddRuleSetVersion saves spec as the rule set's next version, a draft by draftedBy.
func (s *Fraud) AddRuleSetVersion(ctx context.Context, orgID, ruleSetID, spec, draftedBy string) (*FraudRuleSetVersion, error) {
	var v *FraudRuleSetVersion
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&FraudRuleSet{}).Where("org_id = ? AND id = ?", orgID, ruleSetID).
			Updates(map[string]any{"latest_version": gorm.Expr("latest_version + 1"), "updated_at": time.Now().UTC()})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		var rs FraudRuleSet
		if err := tx.Where("id = ?", ruleSetID).Take(&rs).Error; err != nil {
			return err
		}
		now := time.Now().UTC()
		v = &FraudRuleSetVersion{RuleSetID: ruleSetID, Version: rs.LatestVersion, OrgID: orgID, Status: string(fraud.VersionDraft),
			Spec: spec, DraftedBy: draftedBy, CreatedAt: now, UpdatedAt: now}
		return tx.Create(v).Error
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// GetRuleSetVersion loads one version of a rule set of the organisation.
func (s *Fraud) GetRuleSetVersion(ctx context.Context, orgID, ruleSetID string, version int) (*FraudRuleSetVersion, error) {
	return fraudVersion(s.DB.WithContext(ctx), orgID, ruleSetID, version)
}

func fraudVersion(db *gorm.DB, orgID, ruleSetID string, version int) (*FraudRuleSetVersion, error) {
	var v FraudRuleSetVersion
	if err := db.Where("org_id = ? AND rule_set_id = ? AND version = ?", orgID, ruleSetID, version).Take(&v).Error; err != nil {
		return nil, NotFound(err)
	}
	return &v, nil
}

// actorColumn is the column that records who took an action.
var actorColumn = map[string]string{"submit": "submitted_by", "approve": "decided_by", "reject": "decided_by", "publish": "published_by"}

// TransitionVersion applies a four-eyes action to a version by actorUserID. The check lives
// in the conditional write: the row moves only from the action's source state and, for
// NotDrafter actions, only when the actor is not the drafter, so two concurrent requests cannot
// both pass. When nothing moves, the error says why (fraud.Action.Authorize: 422 or 409).
// Publishing also retires the version published before and makes this one the rule set's.
func (s *Fraud) TransitionVersion(ctx context.Context, orgID, ruleSetID string, version int, a fraud.Action, actorUserID string) (*FraudRuleSetVersion, *Published, error) {
	if a.BoundUser && actorUserID == "" {
		return nil, nil, fraud.ErrNotBoundToUser
	}
	var out *FraudRuleSetVersion
	var announced *Published
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		now := time.Now().UTC()
		q := tx.Model(&FraudRuleSetVersion{}).Where("org_id = ? AND rule_set_id = ? AND version = ? AND status IN ?",
			orgID, ruleSetID, version, fraud.Versions.SourceNames(a.To))
		if a.NotDrafter {
			q = q.Where("drafted_by <> ?", actorUserID)
		}
		res := q.Updates(map[string]any{"status": string(a.To), actorColumn[a.Name]: actorUserID, "updated_at": now})
		if res.Error != nil {
			return res.Error
		}
		v, err := fraudVersion(tx, orgID, ruleSetID, version)
		if err != nil {
			return err
		}
		if res.RowsAffected == 0 {
			if err := a.Authorize(fraud.VersionStatus(v.Status), v.DraftedBy, actorUserID); err != nil {
				return err
			}
			return fmt.Errorf("store: version %d of %s did not move", version, ruleSetID)
		}
		out = v
		if a != fraud.ActionPublish {
			return nil
		}
		if err := tx.Model(&FraudRuleSetVersion{}).Where("org_id = ? AND rule_set_id = ? AND version <> ? AND status = ?",
			orgID, ruleSetID, version, string(fraud.VersionPublished)).
			Updates(map[string]any{"status": string(fraud.VersionRetired), "updated_at": now}).Error; err != nil {
			return err
		}
		if err := tx.Model(&FraudRuleSet{}).Where("org_id = ? AND id = ?", orgID, ruleSetID).Updates(map[string]any{
			"published_version": version,
			"shadow_version":    gorm.Expr("CASE WHEN shadow_version = ? THEN 0 ELSE shadow_version END", version),
			"updated_at":        now,
		}).Error; err != nil {
			return err
		}
		rs, err := takeInOrg[FraudRuleSet](tx, orgID, ruleSetID)
		if err != nil {
			return err
		}
		announced, err = announcePublished(tx, rs, v, actorUserID, now)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return out, announced, nil
}

// ShadowVersion makes a version that is not published run beside the published one
// (version 0 stops the shadow run). A published, rejected or retired version cannot shadow.
func (s *Fraud) ShadowVersion(ctx context.Context, orgID, ruleSetID string, version int) (*FraudRuleSet, error) {
	var out FraudRuleSet
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		if version != 0 {
			v, err := fraudVersion(tx, orgID, ruleSetID, version)
			if err != nil {
				return err
			}
			switch fraud.VersionStatus(v.Status) {
			case fraud.VersionDraft, fraud.VersionPendingApproval, fraud.VersionApproved:
			default:
				return &ShadowConflictError{Status: v.Status}
			}
		}
		res := tx.Model(&FraudRuleSet{}).Where("org_id = ? AND id = ?", orgID, ruleSetID).
			Updates(map[string]any{"shadow_version": version, "updated_at": time.Now().UTC()})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return tx.Where("id = ?", ruleSetID).Take(&out).Error
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ShadowConflictError is a shadow run asked of a version in a state that cannot shadow.
type ShadowConflictError struct{ Status string }

func (e *ShadowConflictError) Error() string {
	return fmt.Sprintf("a %s version cannot run in shadow; create a new version", e.Status)
}
