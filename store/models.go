package store

// AllModels lists every model: TestModelsMatchMigratedSchema checks each against the migrated
// schema. A new model is added here with its migration (CONTRIBUTING.md).
func AllModels() []any {
	return []any{
		&Organization{}, &User{}, &APIKey{}, &ServiceKey{},
		&Session{}, &AuditLog{}, &RateLimitCounter{}, &RateLimitOverride{}, &IdempotencyRecord{},
		&Ping{},
		&WebhookSubscription{}, &Event{}, &Delivery{}, &DeliveryAttempt{},
		&Workflow{}, &WorkflowVersion{}, &Execution{}, &Step{}, &Approval{},
		&Document{}, &Extraction{}, &Template{}, &DocumentSettings{},
		&IdentityVerification{}, &IdentityAttempt{},
		&ScreeningList{}, &ScreeningListVersion{}, &ScreeningRecord{}, &ScreeningSuppression{}, &ScreeningSettings{},
		&Analysis{}, &AnalysisVersion{}, &StatementTemplate{}, &StatementCategoryRules{},
		&FraudRuleSet{}, &FraudRuleSetVersion{}, &FraudDecision{}, &FraudVelocityEntity{}, &FraudVelocityCounter{}, &FraudVelocitySeen{}, &FraudVelocityPrune{},
		&FraudSubject{}, &FraudDeviceSession{}, &FraudValue{}, &FraudBacktest{},
		&AITokenUsage{}, &AIExchange{}, &AutomationRun{}, &AIDailyTokenLimit{},
		&Customer{},
		&Alert{}, &Case{}, &CaseEntry{}, &CaseEvidence{}, &SARFiling{},
	}
}
