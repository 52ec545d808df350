package store

// AllModels lists every model, for migrations. Each domain file adds its models here.
func AllModels() []any {
	return []any{
		&Organization{}, &User{}, &APIKey{},
		&Session{}, &AuditLog{}, &RateLimitCounter{}, &RateLimitOverride{}, &IdempotencyRecord{},
		&Ping{},
		&WebhookSubscription{}, &Event{}, &Delivery{}, &DeliveryAttempt{},
		&Workflow{}, &WorkflowVersion{}, &Execution{}, &Step{}, &Approval{},
		&Document{}, &Extraction{}, &Template{}, &DocumentSettings{},
	}
}
