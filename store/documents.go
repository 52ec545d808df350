package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	docintel "github.com/svcplatform/svc/internal/documents"
)

// Document is an uploaded file and what the pipeline learned about it (doc_ id). The API
// stores it as uploaded; the DocumentPipeline workflow keeps it in step through its
// activities, so lists and details never ask Temporal.
type Document struct {
	ID     string `gorm:"primaryKey;size:40"`
	OrgID  string `gorm:"size:40;not null;index:ix_documents_org_created,priority:1"`
	Status string `gorm:"size:20;not null;index"`
	// Type is the type hint, then the classified type ("" until known).
	Type     string `gorm:"size:64;index"`
	TypeHint string `gorm:"size:64"`
	Filename string `gorm:"size:255;not null"`
	// Format is the format sniffed from the bytes: pdf, png, jpeg or tiff.
	Format string `gorm:"size:8;not null"`
	Size   int64  `gorm:"not null"`
	SHA256 string `gorm:"size:64;not null;index"`
	// BlobKey names the file in the blob store; TextKey the text the pipeline read from it.
	BlobKey     string `gorm:"size:100;not null"`
	TextKey     string `gorm:"size:100"`
	ExternalRef string `gorm:"size:200"`
	ExternalID  string `gorm:"size:200;index"`
	// PasswordSealed is the user password of an encrypted PDF, sealed with secrets.key and
	// bound to the document id; kept only while the pipeline needs it.
	PasswordSealed           string `gorm:"type:text"`
	ClassificationConfidence *float64
	TemplateID               string `gorm:"size:40"`
	ConfidenceScore          *float64
	Flags                    []string `gorm:"serializer:json;type:text"`
	// FailedStage is the stage a failed document failed in (document.failed's stage).
	FailedStage        string    `gorm:"size:16"`
	ErrorMessage       string    `gorm:"size:1000"`
	LatestExtractionID string    `gorm:"size:40"`
	UploadedBy         string    `gorm:"size:40"`
	CreatedAt          time.Time `gorm:"index:ix_documents_org_created,priority:2"`
	UpdatedAt          time.Time
	CompletedAt        *time.Time
}

// ExtractedField is one field of an extraction.
type ExtractedField struct {
	Value      string  `json:"value"`
	Confidence float64 `json:"confidence"`
	Required   bool    `json:"required"`
	// Found is false for a field the document did not show (Value is then "").
	Found bool `json:"found"`
	// Valid is the validator's verdict (nil when the field has none).
	Valid   *bool  `json:"valid,omitempty"`
	Problem string `json:"problem,omitempty"`
	// Corrected marks a value an analyst entered.
	Corrected bool `json:"corrected,omitempty"`
}

// Extraction is one set of fields read from a document (ext_ id): the pipeline's, or an
// analyst's correction of the previous one.
type Extraction struct {
	ID         string `gorm:"primaryKey;size:40"`
	OrgID      string `gorm:"size:40;not null;index:ix_extractions_org_document,priority:1"`
	DocumentID string `gorm:"size:40;not null;index:ix_extractions_org_document,priority:2"`
	Type       string `gorm:"size:64;not null"`
	TemplateID string `gorm:"size:40"`
	// Source is text_layer, ocr or mixed for the pipeline's, correction for an analyst's.
	Source string `gorm:"size:16;not null"`
	// Status is what the extraction decided: extracted or requires_review.
	Status               string                    `gorm:"size:20;not null"`
	ConfidenceScore      float64                   `gorm:"not null"`
	Fields               map[string]ExtractedField `gorm:"serializer:json;type:text"`
	Flags                []string                  `gorm:"serializer:json;type:text"`
	PreviousExtractionID string                    `gorm:"size:40"`
	ActorUserID          string                    `gorm:"size:40"`
	CreatedAt            time.Time
}

// SourceCorrection is the Source of an analyst's extraction.
const SourceCorrection = "correction"

// Template is an organisation's custom document type (tpl_ id), unique by type.
type Template struct {
	ID          string                   `gorm:"primaryKey;size:40"`
	OrgID       string                   `gorm:"size:40;not null;uniqueIndex:ux_templates_org_type,priority:1"`
	Type        string                   `gorm:"size:64;not null;uniqueIndex:ux_templates_org_type,priority:2"`
	MustInclude []string                 `gorm:"serializer:json;type:text"`
	MustExclude []string                 `gorm:"serializer:json;type:text"`
	Fields      []docintel.TemplateField `gorm:"serializer:json;type:text"`
	CreatedBy   string                   `gorm:"size:40"`
	CreatedAt   time.Time
}

// Engine is the template as the document engine uses it.
func (t *Template) Engine() docintel.Template {
	return docintel.Template{ID: t.ID, Type: t.Type, MustInclude: t.MustInclude, MustExclude: t.MustExclude, Fields: t.Fields}
}

// DocumentSettings are an organisation's own document settings, set by arrangement (like
// rate-limit overrides); absent means the configuration's defaults.
type DocumentSettings struct {
	OrgID string `gorm:"primaryKey;size:40"`
	// Threshold overrides config documents.threshold.
	Threshold float64 `gorm:"not null"`
	UpdatedAt time.Time
}

// pipelineStatuses are the states in which the pipeline still writes a document; a
// document that has left them is never changed by a (late, retried) pipeline write.
var pipelineStatuses = []string{string(docintel.StatusUploaded), string(docintel.StatusProcessing), string(docintel.StatusPasswordRequired)}

// finalDocumentStatuses are the statuses the pipeline has ended a document in.
var finalDocumentStatuses = []string{string(docintel.StatusExtracted), string(docintel.StatusRequiresReview), string(docintel.StatusFailed)}

// ErrStateConflict is returned when a document is not in a state that allows the change;
// the error tells the current state.
var ErrStateConflict = errors.New("state conflict")

// StateError is an ErrStateConflict naming the document's current status.
type StateError struct{ Status string }

// Error implements error.
func (e *StateError) Error() string { return "document is " + e.Status }

// Unwrap makes errors.Is(err, ErrStateConflict) true.
func (e *StateError) Unwrap() error { return ErrStateConflict }

// DocumentPasswordContext binds a document's sealed password to the document (secrets.Box
// contexts): a sealed password copied to another document does not open.
func DocumentPasswordContext(documentID string) string { return "document-password:" + documentID }

// Create stores a new document in state uploaded.
//
// A row with d's id already there is left as it is: a retried upload (api.NewID) finds what
// its first try stored.
func (s *Documents) Create(ctx context.Context, d *Document) error {
	d.Status = string(docintel.StatusUploaded)
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoNothing: true}).Create(d).Error
}

// Get loads a document of the organisation.
func (s *Documents) Get(ctx context.Context, orgID, id string) (*Document, error) {
	return takeInOrg[Document](s.DB.WithContext(ctx), orgID, id)
}

// DeleteUploaded removes a document still in state uploaded: the API stored it but
// could not start its pipeline. A document whose pipeline started is left alone.
func (s *Documents) DeleteUploaded(ctx context.Context, orgID, id string) error {
	return s.DB.WithContext(ctx).Where("org_id = ? AND id = ? AND status = ?", orgID, id, docintel.StatusUploaded).
		Delete(&Document{}).Error
}

// DocumentUpdate is a pipeline write: the non-zero fields are set.
type DocumentUpdate struct {
	Status                   docintel.Status
	Type                     string
	ClassificationConfidence *float64
	TemplateID               string
	TextKey                  string
	FailedStage              string
	ErrorMessage             string
	// ForgetPassword clears the sealed password.
	ForgetPassword bool
	// CompletedAt is set with a final status.
	CompletedAt *time.Time
}

func (u DocumentUpdate) columns() map[string]any {
	cols := map[string]any{"updated_at": time.Now().UTC()}
	set := func(col, v string) {
		if v != "" {
			cols[col] = v
		}
	}
	set("status", string(u.Status))
	set("type", u.Type)
	set("template_id", u.TemplateID)
	set("text_key", u.TextKey)
	set("failed_stage", u.FailedStage)
	set("error_message", u.ErrorMessage)
	if u.ClassificationConfidence != nil {
		cols["classification_confidence"] = *u.ClassificationConfidence
	}
	if u.ForgetPassword {
		cols["password_sealed"] = ""
	}
	if u.CompletedAt != nil {
		cols["completed_at"] = u.CompletedAt.UTC()
	}
	return cols
}

// Update applies a pipeline write to a document the pipeline is still working on;
// a document that has reached a final state is left as it is (a retried write cannot undo
// what came after it).
//
// A write that moves the document does so only along docintel.Lifecycle: from a pipeline state
// the table allows; a write of another kind is refused by matching nothing.
func (s *Documents) Update(ctx context.Context, orgID, id string, u DocumentUpdate) error {
	from := pipelineStatuses
	if u.Status != "" {
		from = pipelineSources(u.Status)
	}
	return s.DB.WithContext(ctx).Model(&Document{}).
		Where("org_id = ? AND id = ? AND status IN ?", orgID, id, from).Updates(u.columns()).Error
}

// pipelineSources lists the pipeline states from which docintel.Lifecycle lets the pipeline
// move a document to to (corrections are an analyst's moves, not the pipeline's).
func pipelineSources(to docintel.Status) []string {
	var out []string
	for _, s := range docintel.Lifecycle.Sources(to) {
		if slices.Contains(pipelineStatuses, string(s)) {
			out = append(out, string(s))
		}
	}
	return out
}

// ClaimPasswordRetry moves a document waiting for its password (password_required) to
// processing and keeps the sealed password for the pipeline, in one conditional write, so
// that of two concurrent attempts exactly one goes through. Otherwise it returns a
// StateError with the current status.
func (s *Documents) ClaimPasswordRetry(ctx context.Context, orgID, id, sealed string) error {
	res := s.DB.WithContext(ctx).Model(&Document{}).
		Where("org_id = ? AND id = ? AND status = ?", orgID, id, docintel.StatusPasswordRequired).
		Updates(map[string]any{"status": string(docintel.StatusProcessing), "password_sealed": sealed, "updated_at": time.Now().UTC()})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 1 {
		return nil
	}
	d, err := s.Get(ctx, orgID, id)
	if err != nil {
		return err
	}
	return &StateError{Status: d.Status}
}

// ReleasePasswordRetry undoes ClaimPasswordRetry when the pipeline could not be told: the
// document waits for its password again and the password is forgotten, unless the pipeline
// has moved on meanwhile.
func (s *Documents) ReleasePasswordRetry(ctx context.Context, orgID, id, sealed string) error {
	return s.DB.WithContext(ctx).Model(&Document{}).
		Where("org_id = ? AND id = ? AND status = ? AND password_sealed = ?", orgID, id, docintel.StatusProcessing, sealed).
		Updates(map[string]any{"status": string(docintel.StatusPasswordRequired), "password_sealed": "", "updated_at": time.Now().UTC()}).Error
}

// Finish stores the pipeline's extraction and moves the document to the extraction's
// status (extracted or requires_review), forgetting its password. Running it again changes
// nothing.
func (s *Documents) Finish(ctx context.Context, x *Extraction, completedAt time.Time) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(x).Error; err != nil {
			return err
		}
		completed := completedAt.UTC()
		return tx.Model(&Document{}).
			Where("org_id = ? AND id = ? AND status IN ?", x.OrgID, x.DocumentID, pipelineSources(docintel.Status(x.Status))).
			Updates(map[string]any{
				"status": x.Status, "type": x.Type, "confidence_score": x.ConfidenceScore, "flags": jsonColumn(x.Flags),
				"latest_extraction_id": x.ID, "password_sealed": "", "completed_at": completed, "updated_at": time.Now().UTC(),
			}).Error
	})
}

// Correct stores an analyst's extraction x, which replaces x.PreviousExtractionID,
// and moves the document to x.Status. The document must be correctable and its latest
// extraction must still be the previous one (StateError otherwise, ErrNotFound for another
// organisation's). Storing the same extraction again changes nothing.
func (s *Documents) Correct(ctx context.Context, x *Extraction) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		d, err := takeInOrg[Document](tx, x.OrgID, x.DocumentID)
		if err != nil {
			return err
		}
		if d.LatestExtractionID == x.ID {
			return nil // stored already
		}
		if !docintel.Status(d.Status).Correctable() || !docintel.Lifecycle.Can(docintel.Status(d.Status), docintel.Status(x.Status)) ||
			d.LatestExtractionID != x.PreviousExtractionID {
			return &StateError{Status: d.Status}
		}
		if err := tx.Create(x).Error; err != nil {
			return err
		}
		res := tx.Model(&Document{}).Where("org_id = ? AND id = ? AND latest_extraction_id = ?", x.OrgID, x.DocumentID, x.PreviousExtractionID).
			Updates(map[string]any{
				"status": x.Status, "confidence_score": x.ConfidenceScore, "flags": jsonColumn(x.Flags),
				"latest_extraction_id": x.ID, "updated_at": time.Now().UTC(),
			})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return &StateError{Status: d.Status}
		}
		return nil
	})
}

// jsonColumn is a []string as the JSON text its column holds (Updates with a map bypasses
// the serializer).
func jsonColumn(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// GetExtraction loads an extraction of the organisation.
func (s *Documents) GetExtraction(ctx context.Context, orgID, id string) (*Extraction, error) {
	return takeInOrg[Extraction](s.DB.WithContext(ctx), orgID, id)
}

// ListExtractions returns one page of a document's extractions, newest first.
func (s *Documents) ListExtractions(ctx context.Context, orgID, documentID string, page Offset) ([]Extraction, int64, error) {
	return ListOffset[Extraction](ctx, s.DB, page, "created_at DESC, id DESC", ForOrg(orgID), Where("document_id = ?", documentID))
}

// DocumentQuery selects documents: the common filters (status, from/to on created_at,
// externalId, q matching the id, the file name and the external reference) and a type.
type DocumentQuery struct {
	Filter Filter
	Type   string
}

func (q DocumentQuery) scopes(orgID string) []Scope {
	scopes := []Scope{ForOrg(orgID), q.Filter.Scope(FilterColumns{
		Text: []string{"id", "filename", "external_ref"}, Status: "status", ExternalID: "external_id",
	})}
	if q.Type != "" {
		scopes = append(scopes, Where("type = ?", q.Type))
	}
	return scopes
}

// List returns one page of the organisation's documents, newest first, and their total.
func (s *Documents) List(ctx context.Context, orgID string, page Offset, q DocumentQuery) ([]Document, int64, error) {
	return ListOffset[Document](ctx, s.DB, page, "created_at DESC, id DESC", q.scopes(orgID)...)
}

// Count counts the documents q selects per status, ignoring q's status filter.
func (s *Documents) Count(ctx context.Context, orgID string, q DocumentQuery) (map[string]int64, error) {
	q.Filter.Status = nil
	return CountBy[Document](ctx, s.DB, "status", q.scopes(orgID)...)
}

// ErrTemplateTypeTaken is returned when an organisation already has a template of that type.
var ErrTemplateTypeTaken = errors.New("template type already exists")

// MaxTemplates is how many templates an organisation may define: classification scores a
// document against every one.
const MaxTemplates = 100

// ErrTooManyTemplates is returned when an organisation has MaxTemplates templates already.
var ErrTooManyTemplates = fmt.Errorf("at most %d templates per organisation", MaxTemplates)

// CreateTemplate stores a new template (validated by docintel.Template.Validate).
func (s *Documents) CreateTemplate(ctx context.Context, t *Template) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&Template{}).Where("org_id = ?", t.OrgID).Count(&n).Error; err != nil {
			return err
		}
		if n >= MaxTemplates {
			return ErrTooManyTemplates
		}
		if err := tx.Create(t).Error; err != nil {
			if IsUniqueViolation(err) {
				return ErrTemplateTypeTaken
			}
			return err
		}
		return nil
	})
}

// GetTemplate loads a template of the organisation.
func (s *Documents) GetTemplate(ctx context.Context, orgID, id string) (*Template, error) {
	return takeInOrg[Template](s.DB.WithContext(ctx), orgID, id)
}

// ListTemplates returns one page of the organisation's templates, newest first; f.Q matches the type.
func (s *Documents) ListTemplates(ctx context.Context, orgID string, page Offset, f Filter) ([]Template, int64, error) {
	return ListOffset[Template](ctx, s.DB, page, "created_at DESC, id DESC", ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"type"}}))
}

// Templates returns every template of the organisation as the engine uses them, oldest first.
func (s *Documents) Templates(ctx context.Context, orgID string) ([]docintel.Template, error) {
	var rows []Template
	if err := s.DB.WithContext(ctx).Where("org_id = ?", orgID).Order("created_at, id").Limit(MaxTemplates).Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]docintel.Template, len(rows))
	for i := range rows {
		out[i] = rows[i].Engine()
	}
	return out, nil
}

// Threshold returns the organisation's confidence threshold, or def when it has none.
func (s *Documents) Threshold(ctx context.Context, orgID string, def float64) (float64, error) {
	var ds DocumentSettings
	err := s.DB.WithContext(ctx).Where("org_id = ?", orgID).Take(&ds).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return def, nil
	}
	if err != nil {
		return 0, err
	}
	return ds.Threshold, nil
}

// SetThreshold sets (or, with nil, removes) the organisation's confidence threshold.
func (s *Documents) SetThreshold(ctx context.Context, orgID string, threshold *float64) error {
	if threshold == nil {
		return s.DB.WithContext(ctx).Where("org_id = ?", orgID).Delete(&DocumentSettings{}).Error
	}
	if *threshold < 0 || *threshold > 1 {
		return fmt.Errorf("store: threshold %v is not between 0 and 1", *threshold)
	}
	ds := DocumentSettings{OrgID: orgID, Threshold: *threshold, UpdatedAt: time.Now().UTC()}
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "org_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"threshold", "updated_at"}),
	}).Create(&ds).Error
}

// FilesToPrune returns up to limit documents that ended (extracted, requires_review or failed)
// before before and still name files in the blob store: the retention Schedule's candidates.
func (s *Documents) FilesToPrune(ctx context.Context, before time.Time, limit int) ([]Document, error) {
	var out []Document
	err := s.DB.WithContext(ctx).Select("id", "org_id", "blob_key", "text_key").
		Where("status IN ? AND completed_at < ? AND (blob_key <> '' OR text_key <> '')", finalDocumentStatuses, before.UTC()).
		Order("completed_at").Limit(limit).Find(&out).Error
	return out, err
}

// FileInUse reports whether a record other than the document except still names the blob key.
func (s *Documents) FileInUse(ctx context.Context, key, except string) (bool, error) {
	return blobInUse(ctx, s.DB, key, except)
}

// ForgetFiles notes that an ended document's file and text were deleted by retention: the
// record, its fields and its extractions stay.
func (s *Documents) ForgetFiles(ctx context.Context, orgID, id string) error {
	return s.DB.WithContext(ctx).Model(&Document{}).
		Where("org_id = ? AND id = ? AND status IN ?", orgID, id, finalDocumentStatuses).
		Updates(map[string]any{"blob_key": "", "text_key": ""}).Error
}
