// Package identity holds the identity verification product's activities: reading an
// attempt's document with the documents engine, checking and deciding it, and the
// verification's conditional writes (expiry, a reviewer's decision). Every one is idempotent:
// a retry finds its write already made and answers the same.
package identity

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	idvwf "github.com/svcplatform/svc/workflows/identity"
)

// Activities are the identity activities, registered under their method names.
type Activities struct {
	Store  *store.Store
	Blobs  blobs.Store
	Engine *docintel.Engine
	// Checks are the checks of every attempt (idv.DefaultChecks).
	Checks []idv.Check
	// Screener screens people when a policy requires it; nil when the screening product is
	// not connected (the screening check then asks for review).
	Screener idv.Screener
	// MaxFileBytes bounds the images read back from the blob store.
	MaxFileBytes int64
	// Metrics counts decided attempts and failed checks; nil counts nothing.
	Metrics *Metrics
	Logger  *slog.Logger
}

func (a *Activities) logger() *slog.Logger {
	if a.Logger == nil {
		return slog.Default()
	}
	return a.Logger
}

// ReadIdentityDocument reads an attempt's front image with the documents engine and stores
// what it read with the attempt. A file the engine cannot read is stored as unreadable (the
// checks decide what that means); only a tool failure is an error (retried).
func (a *Activities) ReadIdentityDocument(ctx context.Context, ref idvwf.AttemptRef) (idvwf.ReadResult, error) {
	att, err := a.Store.Identity.GetAttempt(ctx, ref.OrgID, ref.AttemptID)
	if err != nil {
		return idvwf.ReadResult{}, err
	}
	if att.Document != nil { // read before: a retry
		return idvwf.ReadResult{Readable: att.Document.Readable, Type: att.Document.Type}, nil
	}
	var doc idv.Document
	data, err := blobs.ReadAll(ctx, a.Blobs, att.FrontKey, a.MaxFileBytes)
	switch {
	case errors.Is(err, blobs.ErrNotFound), errors.Is(err, blobs.ErrTooLarge):
		doc = idv.FromResult(nil, errors.New("the stored image is missing"))
	case err != nil:
		return idvwf.ReadResult{}, err
	default:
		start := time.Now()
		res, perr := a.Engine.Process(ctx, data, docintel.ProcessOptions{Now: start})
		a.Metrics.observeRead(time.Since(start))
		if perr != nil && errors.Is(perr, docintel.ErrTool) {
			return idvwf.ReadResult{}, perr
		}
		doc = idv.FromResult(res, perr)
	}
	if err := a.Store.Identity.SaveDocument(ctx, ref.OrgID, ref.AttemptID, doc); err != nil {
		return idvwf.ReadResult{}, err
	}
	return idvwf.ReadResult{Readable: doc.Readable, Type: doc.Type}, nil
}

// EvaluateIdentityAttempt runs the checks on a read attempt, decides, and records both with
// the verification's move (one transaction). A retry answers from what was recorded.
func (a *Activities) EvaluateIdentityAttempt(ctx context.Context, in idvwf.EvaluateInput) (idvwf.EvaluateResult, error) {
	att, err := a.Store.Identity.GetAttempt(ctx, in.Ref.OrgID, in.Ref.AttemptID)
	if err != nil {
		return idvwf.EvaluateResult{}, err
	}
	if att.Status != string(idv.AttemptProcessing) {
		return idvwf.EvaluateResult{AttemptStatus: idv.AttemptStatus(att.Status), Checks: att.Checks,
			Outcome: idv.Outcome{Status: idv.Status(att.Outcome), Reasons: att.Reasons}, Applied: true}, nil
	}
	v, err := a.Store.Identity.GetVerification(ctx, in.Ref.OrgID, in.Ref.VerificationID)
	if err != nil {
		return idvwf.EvaluateResult{}, err
	}
	status := idv.AttemptCompleted
	doc := idv.Document{ReadError: "the document could not be processed"}
	switch {
	case in.ReadFailed || att.Document == nil:
		status = idv.AttemptFailed
	default:
		doc = *att.Document
	}
	input := &idv.Input{Document: doc, Claimed: v.Claimed, Policy: v.Policy, Now: in.Now}
	if v.Policy.RequireScreening && a.Screener != nil && status == idv.AttemptCompleted {
		customerID, err := a.screenedCustomer(ctx, v)
		if err != nil {
			return idvwf.EvaluateResult{}, err
		}
		out, err := a.Screener.Screen(ctx, idv.ScreeningRequest{OrgID: v.OrgID, VerificationID: v.ID, AttemptNumber: att.Number,
			FullName: v.Claimed.FullName, BirthDate: v.Claimed.BirthDate, CustomerID: customerID})
		if err != nil {
			a.logger().Warn("identity screening failed", "verificationId", v.ID, "error", err)
			out = idv.ScreeningOutcome{Error: "screening failed"}
		}
		input.Screening = &out
	}
	checks, outcome := idv.Evaluate(a.Checks, input, att.Number)
	applied, err := a.Store.Identity.CompleteAttempt(ctx, v.OrgID, att.ID, status, checks, outcome, in.Now)
	if err != nil {
		return idvwf.EvaluateResult{}, err
	}
	if applied {
		a.Metrics.observeAttempt(status, outcome, checks)
	}
	return idvwf.EvaluateResult{AttemptStatus: status, Outcome: outcome, Checks: checks, Applied: applied}, nil
}

// screenedCustomer is the verification's customerId when it names one of the organisation's
// customers (cus_), which the screening then refers to; "" otherwise. A verification's
// customerId may be the organisation's own reference, which the screening product would
// refuse (404) and so never screen the person.
func (a *Activities) screenedCustomer(ctx context.Context, v *store.IdentityVerification) (string, error) {
	if v.CustomerID == "" {
		return "", nil
	}
	_, err := a.Store.Customers.Get(ctx, v.OrgID, v.CustomerID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return v.CustomerID, nil
}

// ExpireIdentityVerification expires a verification still waiting for input at its deadline;
// false when an attempt arrived first.
func (a *Activities) ExpireIdentityVerification(ctx context.Context, in idvwf.ExpireInput) (bool, error) {
	return a.Store.Identity.ExpireVerification(ctx, in.OrgID, in.VerificationID, in.Now)
}

// ReviewIdentityVerification records a reviewer's decision on a verification in review.
func (a *Activities) ReviewIdentityVerification(ctx context.Context, in idvwf.ReviewInput) (idvwf.ReviewResult, error) {
	to := in.Request.Decision.Target()
	err := a.Store.Identity.ReviewVerification(ctx, in.OrgID, in.VerificationID, to, in.Request.ActorUserID, in.Request.Comment, in.Now)
	var se *store.StateError
	switch {
	case errors.As(err, &se):
		return idvwf.ReviewResult{}, workflows.StateConflictError(se.Status, string(to))
	case errors.Is(err, store.ErrNoAttemptsLeft):
		return idvwf.ReviewResult{}, workflows.StateConflictError(string(idv.StatusReview), string(to))
	case err != nil:
		return idvwf.ReviewResult{}, err
	}
	return idvwf.ReviewResult{Status: to}, nil
}

// deleter is a blob store that can delete (the local one).
type deleter interface {
	Delete(ctx context.Context, key string) error
}

// PurgeIdentityData deletes the images and extracted data of up to in.Limit attempts that
// completed before in.Before (the retention Schedule's run). An image whose bytes something
// else still refers to is kept as a file; the attempt forgets it all the same.
func (a *Activities) PurgeIdentityData(ctx context.Context, in idvwf.PurgeInput) (idvwf.PurgeResult, error) {
	var out idvwf.PurgeResult
	atts, err := a.Store.Identity.PurgeCandidates(ctx, in.Before, in.Limit)
	if err != nil {
		return out, err
	}
	del, canDelete := a.Blobs.(deleter)
	for _, att := range atts {
		for _, key := range []string{att.FrontKey, att.BackKey} {
			if key == "" || !canDelete {
				continue
			}
			used, err := a.Store.Identity.BlobInUse(ctx, key, att.ID)
			if err != nil {
				return out, err
			}
			if used {
				continue
			}
			if err := del.Delete(ctx, key); err != nil {
				return out, err
			}
			out.Images++
		}
		if err := a.Store.Identity.MarkPurged(ctx, att.OrgID, att.ID, time.Now()); err != nil {
			return out, err
		}
		out.Attempts++
	}
	return out, nil
}
