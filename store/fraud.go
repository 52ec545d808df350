package store

import (
	"time"
)

// Fraud is the fraud product's repository.
type Fraud struct{ *handle }

// Anti-fraud records (product fraud). The fast path writes a decision, its transaction and its
// velocity counters in one database transaction, so every decision keeps its evidence.

// FraudRuleSet is a rule set (rul_): the rules that decide one kind of subject (appliesTo is
// "transaction" or an event type), with its published and shadow versions.
type FraudRuleSet struct {
	ID        string `gorm:"primaryKey;size:40"`
	OrgID     string `gorm:"size:40;not null;uniqueIndex:ux_fraud_rule_sets_org_applies,priority:1;index:ix_fraud_rule_sets_org_created,priority:1"`
	Name      string `gorm:"size:200;not null"`
	AppliesTo string `gorm:"size:64;not null;uniqueIndex:ux_fraud_rule_sets_org_applies,priority:2"`
	// LatestVersion is the number of the newest version (0 before the first).
	LatestVersion int `gorm:"not null"`
	// PublishedVersion is the version that decides (0: none yet).
	PublishedVersion int `gorm:"not null"`
	// ShadowVersion runs beside the published one without changing outcomes (0: none).
	ShadowVersion int       `gorm:"not null"`
	CreatedBy     string    `gorm:"size:40"`
	CreatedAt     time.Time `gorm:"index:ix_fraud_rule_sets_org_created,priority:2"`
	UpdatedAt     time.Time
}

// FraudRuleSetVersion is one version of a rule set: its rules and thresholds (fraud.VersionSpec
// as JSON) and its four-eyes life cycle (fraud.Versions).
type FraudRuleSetVersion struct {
	RuleSetID   string `gorm:"primaryKey;size:40"`
	Version     int    `gorm:"primaryKey;autoIncrement:false"`
	OrgID       string `gorm:"size:40;not null;index"`
	Status      string `gorm:"size:20;not null"`
	Spec        string `gorm:"type:text;not null"`
	DraftedBy   string `gorm:"size:40;not null"`
	SubmittedBy string `gorm:"size:40"`
	DecidedBy   string `gorm:"size:40"`
	PublishedBy string `gorm:"size:40"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// FraudDecision is one decision (dec_) with its evidence: the evaluated subject, the data the
// rules read (fraud.Snapshot), the live result and the shadow result.
type FraudDecision struct {
	ID    string `gorm:"primaryKey;size:40"`
	OrgID string `gorm:"size:40;not null;index:ix_fraud_decisions_org_created,priority:1;index:ix_fraud_decisions_org_occurred,priority:1"`
	// Kind is transaction or event; EventType the subject's type.
	Kind          string `gorm:"size:16;not null"`
	EventType     string `gorm:"size:64;not null"`
	TransactionID string `gorm:"size:128;index"`
	CustomerID    string `gorm:"size:128;not null;index"`
	AmountMinor   int64
	Currency      string    `gorm:"size:3"`
	OccurredAt    time.Time `gorm:"index:ix_fraud_decisions_org_occurred,priority:2"`
	Outcome       string    `gorm:"size:20;not null"`
	Score         int       `gorm:"not null"`
	// RuleSetID and RuleSetVersion name the version that decided ("" and 0 when none is published).
	RuleSetID      string `gorm:"size:40"`
	RuleSetVersion int
	// Result is the live fraud.Result, Shadow the shadow version's (empty without one).
	Result        string `gorm:"type:text;not null"`
	ShadowVersion int
	Shadow        string `gorm:"type:text"`
	Snapshot      string `gorm:"type:text;not null"`
	ExternalID    string `gorm:"size:200;index"`
	// ReviewStatus follows fraud.Reviews.
	ReviewStatus string `gorm:"size:20;not null"`
	ReviewedBy   string `gorm:"size:40"`
	ReviewNote   string `gorm:"size:2000"`
	ReviewedAt   *time.Time
	CreatedAt    time.Time `gorm:"index:ix_fraud_decisions_org_created,priority:2"`
}

// FraudVelocityEntity is one entity whose velocity is counted: an organisation's customer,
// account, device, IP or counterparty. Its counter and last-seen rows are keyed by its ID
// (migration 03004): the three strings made up most of every key the fast path seeks and binds.
// An ID, once committed, never changes and is never reused (fraudCache keeps them).
type FraudVelocityEntity struct {
	ID        int64  `gorm:"primaryKey;autoIncrement"`
	OrgID     string `gorm:"not null;size:40;uniqueIndex:ux_fraud_velocity_entities,priority:1"`
	Dimension string `gorm:"not null;size:16;uniqueIndex:ux_fraud_velocity_entities,priority:2"`
	Entity    string `gorm:"not null;size:256;uniqueIndex:ux_fraud_velocity_entities,priority:3"`
}

// FraudVelocityPrune is where the velocity prune (Fraud.PruneVelocity) goes on from: it walks
// the entities in id order, a chunk at a time, across calls and retention runs. One row.
type FraudVelocityPrune struct {
	ID            int64 `gorm:"primaryKey;autoIncrement:false"`
	AfterEntityID int64 `gorm:"not null"`
}

// TableName keeps the one row's table singular.
func (FraudVelocityPrune) TableName() string { return "fraud_velocity_prune" }

// FraudVelocityCounter is one pre-aggregated velocity bucket: the events and amount of one
// entity in one currency in one time bucket (fraud.BucketsAt).
// On SQLite this table, FraudVelocitySeen's and FraudSubject's are WITHOUT ROWID (migrations
// 03003, 03004): their key is all the fast path reads and writes them by.
type FraudVelocityCounter struct {
	EntityID    int64  `gorm:"primaryKey;not null;autoIncrement:false"`
	BucketSize  int64  `gorm:"primaryKey;not null;autoIncrement:false"`
	BucketStart int64  `gorm:"primaryKey;not null;autoIncrement:false"`
	Currency    string `gorm:"primaryKey;not null;size:3"`
	Events      int64  `gorm:"not null"`
	AmountMinor int64  `gorm:"not null"`
}

// FraudVelocitySeen is when one value of an attribute (an IP of a customer) was last seen:
// distinct counts over a window count the values last seen in it.
type FraudVelocitySeen struct {
	EntityID  int64  `gorm:"primaryKey;not null;autoIncrement:false;index:ix_fraud_velocity_seen_window,priority:1"`
	Attribute string `gorm:"primaryKey;not null;size:16;index:ix_fraud_velocity_seen_window,priority:2"`
	Value     string `gorm:"primaryKey;not null;size:256"`
	// LastSeen is Unix seconds.
	LastSeen int64 `gorm:"not null;index:ix_fraud_velocity_seen_window,priority:3"`
}

// TableName keeps the table's name singular, as the raw upserts spell it.
func (FraudVelocitySeen) TableName() string { return "fraud_velocity_seen" }

// FraudSubject remembers when a customer or a device was first seen (Unix milliseconds) and,
// for devices, last seen.
type FraudSubject struct {
	OrgID       string `gorm:"primaryKey;not null;size:40"`
	Kind        string `gorm:"primaryKey;not null;size:16"`
	SubjectID   string `gorm:"primaryKey;not null;size:256"`
	FirstSeenMs int64  `gorm:"not null"`
	LastSeenMs  int64  `gorm:"not null"`
}

// FraudDeviceSession is a device session (dvs_) registered by POST /api/device-session.
type FraudDeviceSession struct {
	ID         string         `gorm:"primaryKey;size:40"`
	OrgID      string         `gorm:"size:40;not null;index"`
	DeviceID   string         `gorm:"size:128;not null;index"`
	CustomerID string         `gorm:"size:128"`
	IP         string         `gorm:"size:64"`
	Country    string         `gorm:"size:2"`
	Signals    map[string]any `gorm:"serializer:json;type:text"`
	ExternalID string         `gorm:"size:200"`
	CreatedAt  time.Time
}

// FraudValue is one value of one of the organisation's value lists (allow and deny lists
// that rules read as lists.<name>).
type FraudValue struct {
	OrgID     string `gorm:"primaryKey;size:40"`
	List      string `gorm:"primaryKey;size:64"`
	Value     string `gorm:"primaryKey;size:256"`
	CreatedAt time.Time
}

// FraudBacktest (bkt_) replays a candidate version over the stored decisions of a date range
// (the FraudBacktest workflow); Report is the fraud.BacktestReport so far.
type FraudBacktest struct {
	ID        string    `gorm:"primaryKey;size:40"`
	OrgID     string    `gorm:"size:40;not null;index"`
	RuleSetID string    `gorm:"size:40;not null"`
	Version   int       `gorm:"not null"`
	From      time.Time `gorm:"column:range_from"`
	To        time.Time `gorm:"column:range_to"`
	Status    string    `gorm:"size:16;not null"`
	// Total is the number of decisions in the range, Done how many were replayed.
	Total       int64  `gorm:"not null"`
	Done        int64  `gorm:"not null"`
	Report      string `gorm:"type:text"`
	Error       string `gorm:"size:1000"`
	CreatedBy   string `gorm:"size:40"`
	CreatedAt   time.Time
	CompletedAt *time.Time
}
