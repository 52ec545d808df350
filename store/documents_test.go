package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

func newDocument(t *testing.T, s *store.Store, orgID string, mod func(*store.Document)) *store.Document {
	t.Helper()
	d := &store.Document{ID: ids.New(ids.Document), OrgID: orgID, Filename: "card.pdf", Format: "pdf", Size: 1234,
		SHA256: "ab", BlobKey: "sha256/ab/ab", ExternalID: "ext-1", ExternalRef: "ref-1", UploadedBy: "usr_1"}
	if mod != nil {
		mod(d)
	}
	if err := s.Documents.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return d
}

func ptr[T any](v T) *T { return &v }

func TestDocumentPipelineWrites(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		d := newDocument(t, s, org, func(d *store.Document) { d.PasswordSealed = "v1:sealed" })
		if d.Status != string(docintel.StatusUploaded) {
			t.Fatalf("new document status %q", d.Status)
		}
		if _, err := s.Documents.Get(ctx, other, d.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation reads it: %v", err)
		}
		// Another organisation's write changes nothing.
		if err := s.Documents.Update(ctx, other, d.ID, store.DocumentUpdate{Status: docintel.StatusFailed}); err != nil {
			t.Fatal(err)
		}
		if err := s.Documents.Update(ctx, org, d.ID, store.DocumentUpdate{Status: docintel.StatusProcessing, Type: "npwp",
			ClassificationConfidence: ptr(0.9), TextKey: "sha256/cd/cd"}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Documents.Get(ctx, org, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != "processing" || got.Type != "npwp" || *got.ClassificationConfidence != 0.9 || got.TextKey != "sha256/cd/cd" ||
			got.PasswordSealed != "v1:sealed" {
			t.Fatalf("after update: %+v", got)
		}

		// The pipeline's extraction ends it; running that again changes nothing.
		x := &store.Extraction{ID: ids.New(ids.Extraction), OrgID: org, DocumentID: d.ID, Type: "npwp", Source: "text_layer",
			Status: string(docintel.StatusRequiresReview), ConfidenceScore: 0.3, Flags: []string{"npwp_number:check_digit"},
			Fields: map[string]store.ExtractedField{"npwp_number": {Value: "09.254.294.8-407.000", Confidence: 0.3, Required: true, Found: true, Valid: ptr(false), Problem: "check_digit"}}}
		done := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		for i := 0; i < 2; i++ {
			if err := s.Documents.Finish(ctx, x, done); err != nil {
				t.Fatal(err)
			}
		}
		got, _ = s.Documents.Get(ctx, org, d.ID)
		if got.Status != "requires_review" || got.LatestExtractionID != x.ID || *got.ConfidenceScore != 0.3 ||
			!reflect.DeepEqual(got.Flags, []string{"npwp_number:check_digit"}) || got.PasswordSealed != "" || !got.CompletedAt.Equal(done) {
			t.Fatalf("after finish: %+v", got)
		}
		gx, err := s.Documents.GetExtraction(ctx, org, x.ID)
		if err != nil || gx.Fields["npwp_number"].Problem != "check_digit" || *gx.Fields["npwp_number"].Valid {
			t.Fatalf("extraction = %+v, %v", gx, err)
		}
		// A late pipeline write cannot undo the end.
		if err := s.Documents.Update(ctx, org, d.ID, store.DocumentUpdate{Status: docintel.StatusFailed, FailedStage: "text"}); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.Documents.Get(ctx, org, d.ID); got.Status != "requires_review" || got.FailedStage != "" {
			t.Fatalf("a late write changed a finished document: %+v", got)
		}

		// A correction replaces the latest extraction; a stale one is a conflict.
		c1 := &store.Extraction{ID: ids.New(ids.Extraction), OrgID: org, DocumentID: d.ID, Type: "npwp", Source: store.SourceCorrection,
			Status: string(docintel.StatusExtracted), ConfidenceScore: 1, Flags: []string{}, PreviousExtractionID: x.ID, ActorUserID: "usr_2",
			Fields: map[string]store.ExtractedField{"npwp_number": {Value: "09.254.294.3-407.000", Confidence: 1, Required: true, Found: true, Corrected: true}}}
		if err := s.Documents.Correct(ctx, c1); err != nil {
			t.Fatal(err)
		}
		if err := s.Documents.Correct(ctx, c1); err != nil {
			t.Fatalf("the same correction again: %v", err)
		}
		stale := *c1
		stale.ID = ids.New(ids.Extraction)
		var se *store.StateError
		if err := s.Documents.Correct(ctx, &stale); !errors.As(err, &se) || se.Status != "extracted" || !errors.Is(err, store.ErrStateConflict) {
			t.Fatalf("a correction of a replaced extraction: %v", err)
		}
		foreign := *c1
		foreign.ID, foreign.OrgID, foreign.PreviousExtractionID = ids.New(ids.Extraction), other, c1.ID
		if err := s.Documents.Correct(ctx, &foreign); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation corrects it: %v", err)
		}
		got, _ = s.Documents.Get(ctx, org, d.ID)
		if got.Status != "extracted" || got.LatestExtractionID != c1.ID || *got.ConfidenceScore != 1 || len(got.Flags) != 0 {
			t.Fatalf("after correction: %+v", got)
		}
		rows, total, err := s.Documents.ListExtractions(ctx, org, d.ID, store.Offset{Page: 1, Limit: 10})
		if err != nil || total != 2 || len(rows) != 2 {
			t.Fatalf("extractions = %d of %d, %v", len(rows), total, err)
		}
		if rows, total, _ := s.Documents.ListExtractions(ctx, other, d.ID, store.Offset{Page: 1, Limit: 10}); total != 0 || len(rows) != 0 {
			t.Fatalf("another organisation lists %d extractions", total)
		}
	})
}

func TestDocumentCorrectionNeedsAnExtraction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		d := newDocument(t, s, org, nil)
		x := &store.Extraction{ID: ids.New(ids.Extraction), OrgID: org, DocumentID: d.ID, Type: "npwp", Source: store.SourceCorrection,
			Status: "extracted", ConfidenceScore: 1}
		var se *store.StateError
		if err := s.Documents.Correct(ctx, x); !errors.As(err, &se) || se.Status != "uploaded" {
			t.Fatalf("correcting an uploaded document: %v", err)
		}
		if _, err := s.Documents.GetExtraction(ctx, org, x.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a refused correction was stored: %v", err)
		}
	})
}

func TestPasswordRetryClaim(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		d := newDocument(t, s, org, nil)
		var se *store.StateError
		if err := s.Documents.ClaimPasswordRetry(ctx, org, d.ID, "v1:a"); !errors.As(err, &se) || se.Status != "uploaded" {
			t.Fatalf("claim on an uploaded document: %v", err)
		}
		for _, st := range []docintel.Status{docintel.StatusProcessing, docintel.StatusPasswordRequired} {
			if err := s.Documents.Update(ctx, org, d.ID, store.DocumentUpdate{Status: st, ForgetPassword: true}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Documents.ClaimPasswordRetry(ctx, other, d.ID, "v1:x"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation's claim: %v", err)
		}
		if err := s.Documents.ClaimPasswordRetry(ctx, org, d.ID, "v1:a"); err != nil {
			t.Fatal(err)
		}
		// The second concurrent attempt finds the document processing.
		if err := s.Documents.ClaimPasswordRetry(ctx, org, d.ID, "v1:b"); !errors.As(err, &se) || se.Status != "processing" {
			t.Fatalf("second claim: %v", err)
		}
		got, _ := s.Documents.Get(ctx, org, d.ID)
		if got.Status != "processing" || got.PasswordSealed != "v1:a" {
			t.Fatalf("after claim: %+v", got)
		}
		// Releasing with another password changes nothing; with its own, it waits again.
		if err := s.Documents.ReleasePasswordRetry(ctx, org, d.ID, "v1:b"); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.Documents.Get(ctx, org, d.ID); got.Status != "processing" {
			t.Fatalf("released by the wrong claim: %+v", got)
		}
		if err := s.Documents.ReleasePasswordRetry(ctx, org, d.ID, "v1:a"); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.Documents.Get(ctx, org, d.ID); got.Status != "password_required" || got.PasswordSealed != "" {
			t.Fatalf("after release: %+v", got)
		}
		// A document that was not stored as uploaded is not deleted as one.
		if err := s.Documents.DeleteUploaded(ctx, org, d.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Documents.Get(ctx, org, d.ID); err != nil {
			t.Fatalf("a started document was deleted: %v", err)
		}
	})
}

func TestListDocuments(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		a := newDocument(t, s, org, func(d *store.Document) { d.ExternalID = "a"; d.Filename = "npwp-card.pdf" })
		b := newDocument(t, s, org, func(d *store.Document) { d.ExternalID = "b" })
		newDocument(t, s, other, nil)
		if err := s.Documents.Update(ctx, org, b.ID, store.DocumentUpdate{Status: docintel.StatusProcessing, Type: "ktp"}); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name string
			q    store.DocumentQuery
			want []string
		}{
			{"all, newest first", store.DocumentQuery{}, []string{b.ID, a.ID}},
			{"status", store.DocumentQuery{Filter: store.Filter{Status: []string{"uploaded"}}}, []string{a.ID}},
			{"type", store.DocumentQuery{Type: "ktp"}, []string{b.ID}},
			{"externalId", store.DocumentQuery{Filter: store.Filter{ExternalID: "a"}}, []string{a.ID}},
			{"q on the file name (a hyphen, which no id holds)", store.DocumentQuery{Filter: store.Filter{Q: "NPWP-CARD"}}, []string{a.ID}},
			{"to before everything", store.DocumentQuery{Filter: store.Filter{To: ptr(time.Now().Add(-time.Hour))}}, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				rows, total, err := s.Documents.List(ctx, org, store.Offset{Page: 1, Limit: 10}, tt.q)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, r := range rows {
					got = append(got, r.ID)
				}
				if !reflect.DeepEqual(got, tt.want) || total != int64(len(tt.want)) {
					t.Fatalf("got %v (total %d), want %v", got, total, tt.want)
				}
			})
		}
		counts, err := s.Documents.Count(ctx, org, store.DocumentQuery{Filter: store.Filter{Status: []string{"uploaded"}}})
		if err != nil || counts["uploaded"] != 1 || counts["processing"] != 1 {
			t.Fatalf("counts = %v, %v", counts, err)
		}
	})
}

func TestTemplatesAndThreshold(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		tpl := &store.Template{ID: ids.New(ids.Template), OrgID: org, Type: "invoice", MustInclude: []string{"INVOICE"},
			Fields: []docintel.TemplateField{{Name: "total", Label: "Total", Validator: "numeric", Required: true}}, CreatedBy: "usr_1"}
		if err := s.Documents.CreateTemplate(ctx, tpl); err != nil {
			t.Fatal(err)
		}
		again := *tpl
		again.ID = ids.New(ids.Template)
		if err := s.Documents.CreateTemplate(ctx, &again); !errors.Is(err, store.ErrTemplateTypeTaken) {
			t.Fatalf("same type again: %v", err)
		}
		theirs := again
		theirs.OrgID = other
		if err := s.Documents.CreateTemplate(ctx, &theirs); err != nil {
			t.Fatalf("another organisation's template of the same type: %v", err)
		}
		got, err := s.Documents.GetTemplate(ctx, org, tpl.ID)
		if err != nil || !reflect.DeepEqual(got.Engine(), tpl.Engine()) {
			t.Fatalf("GetTemplate = %+v, %v", got, err)
		}
		if _, err := s.Documents.GetTemplate(ctx, other, tpl.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation reads it: %v", err)
		}
		all, err := s.Documents.Templates(ctx, org)
		if err != nil || len(all) != 1 || all[0].ID != tpl.ID || all[0].Fields[0].Validator != "numeric" {
			t.Fatalf("Templates = %+v, %v", all, err)
		}
		if rows, total, err := s.Documents.ListTemplates(ctx, org, store.Offset{Page: 1, Limit: 5}, store.Filter{Q: "voic"}); err != nil || total != 1 || rows[0].ID != tpl.ID {
			t.Fatalf("ListTemplates = %v, %d, %v", rows, total, err)
		}

		for _, tt := range []struct {
			set  *float64
			want float64
		}{{nil, 0.8}, {ptr(0.65), 0.65}, {ptr(0.9), 0.9}, {nil, 0.8}} {
			if err := s.Documents.SetThreshold(ctx, org, tt.set); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Documents.Threshold(ctx, org, 0.8); err != nil || got != tt.want {
				t.Fatalf("threshold after setting %v = %v, %v; want %v", tt.set, got, err, tt.want)
			}
		}
		if err := s.Documents.SetThreshold(ctx, org, ptr(1.5)); err == nil {
			t.Fatal("a threshold above 1 was accepted")
		}
		if got, _ := s.Documents.Threshold(ctx, other, 0.8); got != 0.8 {
			t.Fatalf("another organisation's threshold = %v", got)
		}
	})
}
