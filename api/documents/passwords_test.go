package documents_test

import (
	"context"
	"errors"
	"testing"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api/documents"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
)

// passwordTemporal answers the document-password Update with err, recording what it was sent.
type passwordTemporal struct {
	client.Client
	err     error
	updates []client.UpdateWorkflowOptions
}

func (p *passwordTemporal) UpdateWorkflow(_ context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	p.updates = append(p.updates, o)
	return update{p.err}, nil
}

type update struct{ err error }

func (update) WorkflowID() string               { return "" }
func (update) RunID() string                    { return "" }
func (update) UpdateID() string                 { return "" }
func (u update) Get(context.Context, any) error { return u.err }

// waiting stores a document waiting in password_required.
func waiting(t *testing.T, s *store.Store) *store.Document {
	t.Helper()
	ctx := context.Background()
	d := &store.Document{ID: ids.New(ids.Document), OrgID: "org_test", Filename: "locked.pdf", Format: "pdf", BlobKey: "k"}
	if err := s.Documents.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := s.DB.Model(&store.Document{}).Where("id = ?", d.ID).Update("status", string(docintel.StatusPasswordRequired)).Error; err != nil {
		t.Fatal(err)
	}
	d, err := s.Documents.Get(ctx, d.OrgID, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSubmitPassword: the password is sealed with the platform box (no webhooks involved),
// claimed in one conditional write and handed to the pipeline; a refused Update, or a run that
// has ended, leaves the document waiting without it; a document not waiting is a state error.
func TestSubmitPassword(t *testing.T) {
	key, _ := secrets.NewKey()
	box, err := secrets.FromConfig(key)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()

		t.Run("accepted", func(t *testing.T) {
			tc := &passwordTemporal{}
			p := &documents.Passwords{Store: s, Box: box, Temporal: tc}
			d := waiting(t, s)
			if err := p.Submit(ctx, d, "usr_1", "s3cret"); err != nil {
				t.Fatal(err)
			}
			got, _ := s.Documents.Get(ctx, d.OrgID, d.ID)
			if got.Status != string(docintel.StatusProcessing) {
				t.Errorf("status %s, want processing", got.Status)
			}
			if plain, err := box.Open(got.PasswordSealed, store.DocumentPasswordContext(d.ID)); err != nil || string(plain) != "s3cret" {
				t.Errorf("sealed password opens to %q, %v", plain, err)
			}
			if len(tc.updates) != 1 || tc.updates[0].WorkflowID != d.ID || tc.updates[0].UpdateName != docwf.UpdateDocumentPassword {
				t.Errorf("updates %+v", tc.updates)
			}
			var se *store.StateError
			if err := p.Submit(ctx, d, "usr_1", "again"); !errors.As(err, &se) || se.Status != string(docintel.StatusProcessing) {
				t.Errorf("second submit = %v, want a state error from processing", err)
			}
		})

		for name, updErr := range map[string]error{
			"refused": workflows.StateConflictError("processing", "processing"),
			"ended":   serviceerror.NewNotFound("workflow not found"),
		} {
			t.Run(name, func(t *testing.T) {
				p := &documents.Passwords{Store: s, Box: box, Temporal: &passwordTemporal{err: updErr}}
				d := waiting(t, s)
				err := p.Submit(ctx, d, "usr_1", "s3cret")
				var se *store.StateError
				if _, _, refused := workflows.UpdateErrorStatus(err); !refused && !errors.As(err, &se) {
					t.Fatalf("Submit = %v, want the refusal or a state error", err)
				}
				got, _ := s.Documents.Get(ctx, d.OrgID, d.ID)
				if got.Status != string(docintel.StatusPasswordRequired) || got.PasswordSealed != "" {
					t.Errorf("document %s with password %q, want password_required without one", got.Status, got.PasswordSealed)
				}
			})
		}

		t.Run("no box", func(t *testing.T) {
			p := &documents.Passwords{Store: s, Temporal: &passwordTemporal{}}
			d := waiting(t, s)
			if err := p.Submit(ctx, d, "usr_1", "s3cret"); !errors.Is(err, documents.ErrNoSecretsBox) {
				t.Fatalf("Submit = %v, want ErrNoSecretsBox", err)
			}
			if got, _ := s.Documents.Get(ctx, d.OrgID, d.ID); got.Status != string(docintel.StatusPasswordRequired) {
				t.Errorf("status %s, want password_required", got.Status)
			}
		})

		t.Run("undelivered", func(t *testing.T) {
			p := &documents.Passwords{Store: s, Box: box, Temporal: &passwordTemporal{err: errors.New("connection reset")}}
			d := waiting(t, s)
			if err := p.Submit(ctx, d, "usr_1", "s3cret"); !errors.Is(err, documents.ErrPasswordUndelivered) {
				t.Fatalf("Submit = %v, want ErrPasswordUndelivered", err)
			}
		})
	})
}
