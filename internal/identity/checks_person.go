package identity

import "strings"

// Name similarity bars of the name check.
const (
	// NameMatchThreshold and above: the names are the same person's name.
	NameMatchThreshold = 0.88
	// NameReviewThreshold and above (below NameMatchThreshold): a person should look.
	NameReviewThreshold = 0.7
)

// nameCheck: the printed name is the claimed name, tolerating order, diacritics,
// transliteration and small OCR errors (through the NameMatcher).
type nameCheck struct{ matcher NameMatcher }

func (nameCheck) Type() CheckType { return CheckName }

func (c nameCheck) Run(in *Input) CheckResult {
	printed := in.Document.FullName()
	if printed == "" {
		return failed(CheckName, ReasonNameUnreadable)
	}
	score := c.matcher.Match(in.Claimed.FullName, printed)
	var r CheckResult
	switch {
	case score >= NameMatchThreshold:
		r = passed(CheckName)
	case score >= NameReviewThreshold:
		r = failed(CheckName, ReasonNamePartialMatch)
	default:
		r = failed(CheckName, ReasonNameMismatch)
	}
	r.Score = &score
	return r
}

// birthDateCheck: the printed birth date is exactly the claimed one.
type birthDateCheck struct{}

func (birthDateCheck) Type() CheckType { return CheckBirthDate }

func (birthDateCheck) Run(in *Input) CheckResult {
	birth, ok := in.Document.BirthDate()
	if !ok {
		return failed(CheckBirthDate, ReasonBirthDateUnreadable)
	}
	if birth.Format("2006-01-02") != in.Claimed.BirthDate {
		return failed(CheckBirthDate, ReasonBirthDateMismatch)
	}
	return passed(CheckBirthDate)
}

// claimedFieldCheck compares one optional claimed value with the document's: it applies
// only when the value was claimed.
type claimedFieldCheck struct {
	typ                  CheckType
	claimed              func(Claimed) string
	printed              func(Document) string
	normalize            func(string) string
	unreadable, mismatch string
}

func (c claimedFieldCheck) Type() CheckType { return c.typ }

func (c claimedFieldCheck) Run(in *Input) CheckResult {
	claimed := c.claimed(in.Claimed)
	if claimed == "" {
		return notApplicable(c.typ, ReasonNotClaimed)
	}
	printed := c.printed(in.Document)
	if printed == "" {
		return failed(c.typ, c.unreadable)
	}
	if c.normalize(printed) != c.normalize(claimed) {
		return failed(c.typ, c.mismatch)
	}
	return passed(c.typ)
}

// documentNumberCheck: the printed number (passport number, NIK) is the claimed one,
// ignoring separators and case.
var documentNumberCheck = claimedFieldCheck{
	typ:        CheckDocumentNumber,
	claimed:    func(c Claimed) string { return c.DocumentNumber },
	printed:    Document.DocumentNumber,
	normalize:  normalizeNumber,
	unreadable: ReasonDocumentNumberUnreadable, mismatch: ReasonDocumentNumberMismatch,
}

// nationalityCheck: the document's nationality (alpha-3) is the claimed one.
var nationalityCheck = claimedFieldCheck{
	typ:        CheckNationality,
	claimed:    func(c Claimed) string { return c.Nationality },
	printed:    Document.Nationality,
	normalize:  strings.ToUpper,
	unreadable: ReasonNationalityUnreadable, mismatch: ReasonNationalityMismatch,
}
