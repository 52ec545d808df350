package identity

// Reason codes of failed checks (in the style of Stripe Identity's last_error codes).
const (
	ReasonDocumentUnreadable       = "document_unreadable"
	ReasonDocumentTypeUnknown      = "document_type_unknown"
	ReasonDocumentTypeNotAllowed   = "document_type_not_allowed"
	ReasonMRZNotFound              = "mrz_not_found"
	ReasonMRZCheckDigitFailed      = "mrz_check_digit_failed"
	ReasonDocumentExpired          = "document_expired"
	ReasonExpiryUnreadable         = "expiry_date_unreadable"
	ReasonUnderMinimumAge          = "under_minimum_age"
	ReasonBirthDateUnreadable      = "birth_date_unreadable"
	ReasonNameMismatch             = "name_mismatch"
	ReasonNamePartialMatch         = "name_partial_match"
	ReasonNameUnreadable           = "name_unreadable"
	ReasonBirthDateMismatch        = "birth_date_mismatch"
	ReasonDocumentNumberMismatch   = "document_number_mismatch"
	ReasonDocumentNumberUnreadable = "document_number_unreadable"
	ReasonNationalityMismatch      = "nationality_mismatch"
	ReasonNationalityUnreadable    = "nationality_unreadable"
	ReasonLowOCRConfidence         = "low_ocr_confidence"
	ReasonLowFieldConfidence       = "low_field_confidence"
	ReasonMRZVisualMismatch        = "mrz_visual_mismatch"
	ReasonNIKBirthDateMismatch     = "nik_birth_date_mismatch"
	ReasonNIKGenderMismatch        = "nik_gender_mismatch"
	ReasonNIKProvinceMismatch      = "nik_province_mismatch"
	ReasonScreeningMatch           = "screening_match"
	ReasonScreeningUnavailable     = "screening_unavailable"
)

// Reason codes of checks that do not apply.
const (
	ReasonDocumentNotUsable = "document_not_usable"
	ReasonNotPassport       = "not_a_passport"
	ReasonNoMinimumAge      = "no_minimum_age"
	ReasonNotClaimed        = "not_claimed"
	ReasonNotRequired       = "not_required"
)

// Severity is how much a failed reason weighs in the decision.
type Severity int

// The severities, weakest first.
const (
	// Doubtful sends the verification to a person (review).
	Doubtful Severity = iota + 1
	// Hard asks for a new document while attempts remain, and rejects after the last.
	Hard
	// Final rejects at once: no other document of the same person can pass.
	Final
)

// severity of each failure reason; a reason missing here is Doubtful (a new check added
// without a severity errs towards a person looking at it).
var severity = map[string]Severity{
	ReasonDocumentUnreadable:     Hard,
	ReasonDocumentTypeUnknown:    Hard,
	ReasonDocumentTypeNotAllowed: Hard,
	ReasonMRZNotFound:            Hard,
	ReasonMRZCheckDigitFailed:    Hard,
	ReasonDocumentExpired:        Hard,
	ReasonUnderMinimumAge:        Hard, // Final when the birth date matches the claim (Decide)
	ReasonNameMismatch:           Hard,
	ReasonBirthDateMismatch:      Hard,
	ReasonDocumentNumberMismatch: Hard,
	ReasonNationalityMismatch:    Hard,
}

// SeverityOf returns the weight of a failure reason.
func SeverityOf(reason string) Severity {
	if s, ok := severity[reason]; ok {
		return s
	}
	return Doubtful
}
