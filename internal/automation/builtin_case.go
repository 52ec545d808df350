package automation

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// CaseContext is what a case-based automation (summary, SAR draft) may tell the model about
// a case: its alerts, screenings, decisions and documents. The cases product fills it;
// credentials never belong here, and Ask redacts any that slip in.
type CaseContext struct {
	CaseID     string          `json:"caseId"`
	Subject    CaseSubject     `json:"subject"`
	Status     string          `json:"status,omitempty"`
	OpenedAt   time.Time       `json:"openedAt"`
	Alerts     []CaseAlert     `json:"alerts,omitempty"`
	Screenings []CaseScreening `json:"screenings,omitempty"`
	Decisions  []CaseDecision  `json:"decisions,omitempty"`
	Documents  []CaseDocument  `json:"documents,omitempty"`
	// Notes are the investigators' notes, oldest first.
	Notes []string `json:"notes,omitempty"`
}

// CaseSubject is the customer a case is about.
type CaseSubject struct {
	CustomerID string `json:"customerId,omitempty"`
	Name       string `json:"name"`
	Type       string `json:"type,omitempty"`
	Country    string `json:"country,omitempty"`
}

// CaseAlert is one alert of a case.
type CaseAlert struct {
	ID          string    `json:"id"`
	Source      string    `json:"source"`
	Score       float64   `json:"score,omitempty"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"createdAt"`
}

// CaseScreening is one screening of the subject.
type CaseScreening struct {
	ID      string   `json:"id"`
	Status  string   `json:"status"`
	Matches []string `json:"matches,omitempty"`
}

// CaseDecision is one fraud or review decision.
type CaseDecision struct {
	ID      string   `json:"id"`
	Outcome string   `json:"outcome"`
	Reasons []string `json:"reasons,omitempty"`
}

// CaseDocument is one document attached to the case, with its extracted fields.
type CaseDocument struct {
	ID     string            `json:"id"`
	Type   string            `json:"type"`
	Status string            `json:"status"`
	Fields map[string]string `json:"fields,omitempty"`
}

// CaseReader loads a case with its alerts and evidence (screenings, decisions, documents,
// notes) for an organisation; the cases product implements it. It returns an error
// wrapping ErrCaseNotFound for an unknown case or another organisation's.
type CaseReader interface {
	CaseContext(ctx context.Context, orgID, caseID string) (CaseContext, error)
}

// CaseWriter stores on the case what a case automation wrote, marked machine-written; the
// cases product implements it. Each call is keyed by MachineWritten.AutomationID: a second
// call with the same id (a retried activity) must change nothing.
type CaseWriter interface {
	// SaveMachineSummary stores the summary shown to the case's reviewer.
	SaveMachineSummary(ctx context.Context, orgID, caseID string, s MachineSummary) error
	// SaveSARDraft stores a SAR filing draft of the case whose drafter (filedById) is
	// DraftedBy, the person who asked for it: the four-eyes rule of SAR submission then
	// holds unchanged (another person submits), and a person edits the narrative first.
	SaveSARDraft(ctx context.Context, orgID, caseID string, d MachineSARDraft) error
}

// Cases is what the case automations need of the cases product.
type Cases interface {
	CaseReader
	CaseWriter
}

// MachineWritten marks text a language model wrote: which run, which model, when.
type MachineWritten struct {
	AutomationID string    `json:"automationId"`
	Model        string    `json:"model"`
	WrittenAt    time.Time `json:"writtenAt"`
}

// MachineSummary is a case summary as stored on the case.
type MachineSummary struct {
	CaseSummary
	MachineWritten
}

// MachineSARDraft is a SAR narrative draft as stored on the case.
type MachineSARDraft struct {
	SARDraft
	MachineWritten
	// DraftedBy is the user who asked for the draft (usr_): the drafter under four-eyes.
	DraftedBy string `json:"draftedBy"`
}

// ErrCaseNotFound is returned by a CaseReader for an unknown or foreign case.
var ErrCaseNotFound = errors.New("case not found")

// CaseSummary is the answer of a case summary: stored on the case, marked machine-written.
type CaseSummary struct {
	Summary           string   `json:"summary"`
	KeyRisks          []string `json:"keyRisks"`
	RecommendedAction string   `json:"recommendedAction"`
}

// SARDraft is the answer of a SAR draft: a person edits it, then submits it under four-eyes.
type SARDraft struct {
	Narrative       string   `json:"narrative"`
	SuspiciousFacts []string `json:"suspiciousFacts"`
	MissingEvidence []string `json:"missingEvidence"`
}

var (
	caseSummarySchema = mustSchema(map[string]any{
		"type": "object", "additionalProperties": false,
		"required": []string{"summary", "keyRisks", "recommendedAction"},
		"properties": map[string]any{
			"summary":           map[string]any{"type": "string", "minLength": 1, "maxLength": 4000},
			"keyRisks":          map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": 20},
			"recommendedAction": map[string]any{"type": "string", "enum": []string{"close", "monitor", "escalate", "file_sar"}},
		},
	})
	sarDraftSchema = mustSchema(map[string]any{
		"type": "object", "additionalProperties": false,
		"required": []string{"narrative", "suspiciousFacts", "missingEvidence"},
		"properties": map[string]any{
			"narrative":       map[string]any{"type": "string", "minLength": 1, "maxLength": 20000},
			"suspiciousFacts": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"missingEvidence": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		},
	})
)

// CaseSummaryPrompt is the model step of a case summary.
func CaseSummaryPrompt(c CaseContext) Prompt {
	return Prompt{
		System: lines(
			"You are an AML compliance analyst writing for the reviewer of a case.",
			"Use only the facts in the case file. Do not invent names, amounts, dates or matches.",
			"recommendedAction is one of close, monitor, escalate, file_sar.",
		),
		Prompt:      caseFile("Summarise this case for its reviewer.", c),
		Schema:      caseSummarySchema,
		Temperature: ptr(0.2),
		MaxTokens:   1200,
	}
}

// SARDraftPrompt is the model step of a SAR narrative draft.
func SARDraftPrompt(c CaseContext) Prompt {
	return Prompt{
		System: lines(
			"You draft the narrative of a suspicious activity report for a compliance officer, who will edit and submit it.",
			"Write who, what, when, where and why from the case file only; list facts you could not establish as missingEvidence.",
			"Never invent facts.",
		),
		Prompt:      caseFile("Draft the SAR narrative for this case.", c),
		Schema:      sarDraftSchema,
		Temperature: ptr(0.2),
		MaxTokens:   3000,
	}
}

// caseFile renders the task and the case as the user message.
func caseFile(task string, c CaseContext) string {
	body, cut := clip(indentJSON(c), MaxContextBytes)
	note := ""
	if cut {
		note = "(The case file was cut at its size limit; say so if it matters.)"
	}
	return lines(task, "", "Case file (JSON):", body, note)
}

func ptr[T any](v T) *T { return &v }

// DecodeAnswer reads a validated answer (JSON values as encoding/json decodes them) into T,
// e.g. CaseSummary or SARDraft.
func DecodeAnswer[T any](answer any) (T, error) {
	var v T
	b, err := json.Marshal(answer)
	if err != nil {
		return v, err
	}
	err = json.Unmarshal(b, &v)
	return v, err
}
