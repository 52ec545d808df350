package store

import (
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// subjectKey names a customer or a device in fraud_subjects.
type subjectKey struct{ Kind, ID string }

// subjectsKnown reads, in one query, when each of the subjects already recorded was first
// seen. A first sighting never changes once written, so this may run before the transaction
// that notes the new ones.
func subjectsKnown(db *gorm.DB, orgID string, subjects []subjectKey) (map[subjectKey]time.Time, error) {
	out := make(map[subjectKey]time.Time, len(subjects))
	if len(subjects) == 0 {
		return out, nil
	}
	cond := make([]string, len(subjects))
	args := []any{orgID}
	for i, k := range subjects {
		cond[i] = "(kind = ? AND subject_id = ?)"
		args = append(args, k.Kind, k.ID)
	}
	var rows []FraudSubject
	if err := db.Raw(`SELECT kind, subject_id, first_seen_ms FROM fraud_subjects WHERE org_id = ? AND (`+strings.Join(cond, " OR ")+`)`,
		args...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("subjects: %w", err)
	}
	for _, r := range rows {
		out[subjectKey{r.Kind, r.SubjectID}] = time.UnixMilli(r.FirstSeenMs).UTC()
	}
	return out, nil
}

// noteSubjects records the subjects known lacks as first seen at t, in one insert that returns
// the rows it created, and returns every subject's first sighting and whether this is it. A
// subject another transaction recorded since known was read is read again.
func noteSubjects(tx *gorm.DB, orgID string, subjects []subjectKey, t time.Time, known map[subjectKey]time.Time) (map[subjectKey]time.Time, map[subjectKey]bool, error) {
	first := make(map[subjectKey]time.Time, len(subjects))
	isNew := map[subjectKey]bool{}
	var b strings.Builder
	var args []any
	for _, k := range subjects {
		if at, ok := known[k]; ok {
			first[k] = at
			continue
		}
		if len(args) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?)")
		args = append(args, orgID, k.Kind, k.ID, t.UnixMilli(), t.UnixMilli())
	}
	if len(args) == 0 {
		return first, isNew, nil
	}
	var created []FraudSubject
	if err := tx.Raw(`INSERT INTO fraud_subjects (org_id, kind, subject_id, first_seen_ms, last_seen_ms) VALUES `+b.String()+`
		ON CONFLICT (org_id, kind, subject_id) DO NOTHING RETURNING kind, subject_id`, args...).Scan(&created).Error; err != nil {
		return nil, nil, fmt.Errorf("subjects: %w", err)
	}
	for _, r := range created {
		k := subjectKey{r.Kind, r.SubjectID}
		first[k], isNew[k] = t, true
	}
	var raced []subjectKey
	for _, k := range subjects {
		if _, ok := first[k]; !ok {
			raced = append(raced, k)
		}
	}
	if len(raced) > 0 {
		again, err := subjectsKnown(tx, orgID, raced)
		if err != nil {
			return nil, nil, err
		}
		for k, at := range again {
			first[k] = at
		}
	}
	return first, isNew, nil
}
