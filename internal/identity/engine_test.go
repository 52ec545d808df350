package identity_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
	"github.com/svcplatform/svc/internal/identity"
	it "github.com/svcplatform/svc/internal/identity/identitytest"
)

// attemptDay is the day the generated attempts are made (the default passport expires in 2033).
var attemptDay = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// newEngine fails (never skips) when the engine's programs are missing: CI installs
// internal/documents/APT_PACKAGES.
func newEngine(t *testing.T) *documents.Engine {
	t.Helper()
	e := documents.NewEngine(documents.Config{})
	if err := e.CheckTools(context.Background()); err != nil {
		t.Fatalf("documents engine tools missing (apt-get install $(grep -v '^#' internal/documents/APT_PACKAGES)): %v", err)
	}
	return e
}

func TestAttemptsThroughTheDocumentsEngine(t *testing.T) {
	e := newEngine(t)
	pp, ktp := it.Passport(), it.KTP()
	ppClaim := identity.Claimed{FullName: "Budi Santoso", BirthDate: "1985-03-12", DocumentNumber: "C4821937"}
	ktpClaim := identity.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05", DocumentNumber: "3174054506900003", Nationality: "IDN"}
	both := identity.Policy{DocumentTypes: []string{"passport", "ktp"}, MinimumAge: 18, MaxAttempts: 3}

	expiredPP, youngPP, otherPP := it.ExpiredPassport(), it.YoungPassport(), it.OtherPassport()
	expiredKTP, youngKTP, otherKTP := it.ExpiredKTP(), it.YoungKTP(), it.OtherKTP()

	type tc struct {
		name    string
		file    func(t *testing.T) []byte
		claimed identity.Claimed
		policy  identity.Policy
		attempt int
		screen  *identity.ScreeningOutcome
		status  identity.Status
		reasons []string
		checks  map[identity.CheckType]identity.CheckStatus
	}
	cases := []tc{
		{name: "valid passport photo", file: func(t *testing.T) []byte { return it.Photo(t, it.PassportLayout(t, pp), 5) },
			claimed: ppClaim, policy: both, status: identity.StatusVerified,
			checks: map[identity.CheckType]identity.CheckStatus{identity.CheckMRZ: identity.Passed, identity.CheckExpiry: identity.Passed,
				identity.CheckAge: identity.Passed, identity.CheckName: identity.Passed, identity.CheckDocumentNumber: identity.Passed,
				identity.CheckNationality: identity.NotApplicable, identity.CheckScreening: identity.NotApplicable}},
		{name: "valid KTP photo", file: func(t *testing.T) []byte { return fixtures.KTPPhotoJPEG(t) },
			claimed: ktpClaim, policy: both, status: identity.StatusVerified,
			checks: map[identity.CheckType]identity.CheckStatus{identity.CheckMRZ: identity.NotApplicable, identity.CheckExpiry: identity.Passed,
				identity.CheckNationality: identity.Passed, identity.CheckDocumentNumber: identity.Passed, identity.CheckTamper: identity.Passed}},
		{name: "claimed name in another order with diacritics", file: func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, pp)) },
			claimed: identity.Claimed{FullName: "SANTOSO, Büdi", BirthDate: "1985-03-12"}, policy: both, status: identity.StatusVerified},
		{name: "expired passport", file: func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, expiredPP)) },
			claimed: ppClaim, policy: both, status: identity.StatusResubmissionRequested, reasons: []string{"document_expired"}},
		{name: "expired passport on the last attempt", file: func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, expiredPP)) },
			claimed: ppClaim, policy: both, attempt: 3, status: identity.StatusRejected, reasons: []string{"document_expired"}},
		{name: "expired KTP", file: func(t *testing.T) []byte { return it.TextPDF(t, expiredKTP.Layout()) },
			claimed: ktpClaim, policy: both, status: identity.StatusResubmissionRequested, reasons: []string{"document_expired"}},
		{name: "under-age passport holder", file: func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, youngPP)) },
			claimed: identity.Claimed{FullName: "Budi Santoso", BirthDate: "2010-01-15"}, policy: both,
			status: identity.StatusRejected, reasons: []string{"under_minimum_age"}},
		{name: "under-age KTP holder", file: func(t *testing.T) []byte { return it.TextPDF(t, youngKTP.Layout()) },
			claimed: identity.Claimed{FullName: "Siti Rahayu", BirthDate: "2011-02-03"}, policy: both,
			status: identity.StatusRejected, reasons: []string{"under_minimum_age"}},
		{name: "passport with the wrong name", file: func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, pp)) },
			claimed: identity.Claimed{FullName: "Dewi Lestari", BirthDate: "1985-03-12"}, policy: both,
			status: identity.StatusResubmissionRequested, reasons: []string{"name_mismatch"}},
		{name: "KTP with the wrong name", file: func(t *testing.T) []byte { return it.TextPDF(t, ktp.Layout()) },
			claimed: identity.Claimed{FullName: "Rina Marlina", BirthDate: "1990-06-05"}, policy: both,
			status: identity.StatusResubmissionRequested, reasons: []string{"name_mismatch"}},
		{name: "bad MRZ check digit", file: func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, pp, it.BadCheckDigit)) },
			claimed: ppClaim, policy: both, status: identity.StatusResubmissionRequested, reasons: []string{"mrz_check_digit_failed"}},
		{name: "another person's passport", file: func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, otherPP)) },
			claimed: ppClaim, policy: both, status: identity.StatusResubmissionRequested,
			reasons: []string{"name_mismatch", "birth_date_mismatch", "document_number_mismatch"}},
		{name: "another person's KTP on the last attempt", file: func(t *testing.T) []byte { return it.TextPDF(t, otherKTP.Layout()) },
			claimed: ktpClaim, policy: both, attempt: 3, status: identity.StatusRejected,
			reasons: []string{"name_mismatch", "birth_date_mismatch", "document_number_mismatch"}},
		{name: "unreadable photo", file: func(t *testing.T) []byte { return it.UnreadablePhoto(t, it.PassportLayout(t, pp)) },
			claimed: ppClaim, policy: both, status: identity.StatusResubmissionRequested, reasons: []string{"document_unreadable"},
			checks: map[identity.CheckType]identity.CheckStatus{identity.CheckDocument: identity.Failed, identity.CheckName: identity.NotApplicable}},
		{name: "KTP where only passports are accepted", file: func(t *testing.T) []byte { return it.TextPDF(t, ktp.Layout()) },
			claimed: ktpClaim, policy: identity.Policy{DocumentTypes: []string{"passport"}},
			status: identity.StatusResubmissionRequested, reasons: []string{"document_type_not_allowed"}},
		{name: "a tax card is no identity document", file: func(t *testing.T) []byte { return fixtures.NPWPTextPDF(t) },
			claimed: ktpClaim, policy: both, status: identity.StatusResubmissionRequested, reasons: []string{"document_type_unknown"}},
		{name: "printed name differs from the MRZ", file: func(t *testing.T) []byte {
			return it.TextPDF(t, it.PassportLayout(t, pp, it.PrintedName("BUDI HARTONO")))
		},
			claimed: ppClaim, policy: both, status: identity.StatusReview, reasons: []string{"mrz_visual_mismatch"}},
		{name: "screening hit", file: func(t *testing.T) []byte { return it.TextPDF(t, it.PassportLayout(t, pp)) },
			claimed: ppClaim, policy: identity.Policy{DocumentTypes: []string{"passport"}, RequireScreening: true},
			screen: &identity.ScreeningOutcome{ScreeningID: "scr_1", Matches: 1}, status: identity.StatusReview, reasons: []string{"screening_match"}},
	}
	checks := identity.DefaultChecks(nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.Process(context.Background(), c.file(t), documents.ProcessOptions{Now: attemptDay})
			in := &identity.Input{Document: identity.FromResult(res, err), Claimed: c.claimed, Policy: c.policy, Now: attemptDay, Screening: c.screen}
			attempt := max(c.attempt, 1)
			results, out := identity.Evaluate(checks, in, attempt)
			if out.Status != c.status || !slices.Equal(out.Reasons, c.reasons) {
				t.Errorf("outcome %s %v, want %s %v\nchecks: %s", out.Status, out.Reasons, c.status, c.reasons, describe(results))
			}
			for typ, want := range c.checks {
				if got := statusOf(results, typ); got != want {
					t.Errorf("check %s = %s, want %s", typ, got, want)
				}
			}
			if len(results) != len(checks) {
				t.Errorf("%d results for %d checks", len(results), len(checks))
			}
		})
	}
}

func statusOf(results []identity.CheckResult, typ identity.CheckType) identity.CheckStatus {
	for _, r := range results {
		if r.Type == typ {
			return r.Status
		}
	}
	return ""
}

func describe(results []identity.CheckResult) string {
	var b strings.Builder
	for _, r := range results {
		b.WriteString(string(r.Type) + "=" + string(r.Status))
		if len(r.Reasons) > 0 {
			b.WriteString(strings.Join(r.Reasons, "+"))
		}
		b.WriteString(" ")
	}
	return b.String()
}
