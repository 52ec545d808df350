package automation

import "strconv"

// AuditPolicy says how much of a model step is kept with the step record (config
// ai.audit): the prompt and answer as sent and received (after redaction), or only the
// counts.
type AuditPolicy string

// Audit policies.
const (
	// AuditKeep keeps the whole conversation (already stripped of secrets by Redactor).
	AuditKeep AuditPolicy = "keep"
	// AuditRedact keeps roles and sizes only, for organisations whose prompts carry
	// personal data they will not store twice.
	AuditRedact AuditPolicy = "redact"
)

// AuditRecord is what a step keeps of its conversation.
type AuditRecord struct {
	Policy       AuditPolicy `json:"policy"`
	Conversation []Message   `json:"conversation"`
}

// Audit returns the record of conv under the policy; an unknown policy redacts.
func Audit(policy AuditPolicy, conv []Message) AuditRecord {
	if policy == AuditKeep {
		return AuditRecord{Policy: AuditKeep, Conversation: conv}
	}
	out := make([]Message, len(conv))
	for i, m := range conv {
		out[i] = Message{Role: m.Role, Content: redactedSize(len(m.Content))}
	}
	return AuditRecord{Policy: AuditRedact, Conversation: out}
}

func redactedSize(n int) string {
	return Redacted + " (" + strconv.Itoa(n) + " bytes)"
}
