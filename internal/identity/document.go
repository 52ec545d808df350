package identity

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/documents"
)

// Document is what the documents engine read from an attempt's image, reduced to what the
// checks need; it is stored with the attempt (extracted personal data, deleted with it).
type Document struct {
	// Readable is false when the engine could not read the file (corrupt, unsupported).
	Readable bool `json:"readable"`
	// ReadError is the engine's message when it was not readable (safe to show).
	ReadError string `json:"readError,omitempty"`
	// Type is the classified type (documents.TypePassport, TypeKTP, TypeUnknown, ...).
	Type string `json:"type"`
	// ClassificationConfidence is how sure the classifier was.
	ClassificationConfidence float64 `json:"classificationConfidence"`
	// MeanConfidence is the mean OCR word confidence of the page.
	MeanConfidence float64 `json:"meanConfidence"`
	// Words is how many words were read.
	Words int `json:"words"`
	// Fields are the extracted fields by the engine's names.
	Fields map[string]DocumentField `json:"fields"`
	// Flags are the engine's review flags ("mrz_name_mismatch", "low_confidence:name", ...).
	Flags []string `json:"flags,omitempty"`
}

// DocumentField is one extracted value and the engine's verdict on it.
type DocumentField struct {
	Value      string  `json:"value"`
	Confidence float64 `json:"confidence"`
	// Valid is the engine's validator verdict (check digit, date, NIK cross-check); nil when none applied.
	Valid *bool `json:"valid,omitempty"`
	// Problem is the validator's reason code when Valid is false.
	Problem string `json:"problem,omitempty"`
}

// FromResult reduces the engine's result (and the error Process returned) to a Document.
func FromResult(res *documents.Result, err error) Document {
	d := Document{Fields: map[string]DocumentField{}}
	if err != nil {
		var de *documents.Error
		d.ReadError = "the document could not be read"
		if errors.As(err, &de) {
			d.ReadError = de.Msg
		}
		if res == nil || res.Decision == nil {
			d.Type = documents.TypeUnknown
			return d
		}
	}
	if res == nil || res.Decision == nil {
		d.Type = documents.TypeUnknown
		return d
	}
	d.Readable = err == nil
	if res.Text != nil {
		d.MeanConfidence = res.Text.MeanConfidence
		for _, l := range res.Text.Lines {
			d.Words += len(l.Words)
		}
	}
	d.Type = res.Extraction.Type
	if res.Classification != nil {
		d.ClassificationConfidence = res.Classification.Confidence
	}
	for name, f := range res.Decision.Fields {
		if f.Label == documents.LabelMissing {
			continue
		}
		d.Fields[name] = DocumentField{Value: f.Value, Confidence: f.Confidence, Valid: f.Valid, Problem: f.Problem}
	}
	d.Flags = append([]string(nil), res.Decision.Flags...)
	return d
}

// field returns the value of a found field.
func (d Document) field(name string) (DocumentField, bool) {
	f, ok := d.Fields[name]
	return f, ok && f.Value != ""
}

// FullName is the holder's name as printed: given names then surname on a passport, the
// name on a KTP.
func (d Document) FullName() string {
	if d.Type == documents.TypePassport {
		given, _ := d.field("given_names")
		sur, _ := d.field("surname")
		return strings.TrimSpace(given.Value + " " + sur.Value)
	}
	f, _ := d.field("name")
	return f.Value
}

// BirthDate is the holder's birth date, if it was read as a date.
func (d Document) BirthDate() (time.Time, bool) {
	f, ok := d.field("birth_date")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, f.Value)
	return t, err == nil
}

// DocumentNumber is the passport number or the KTP's NIK.
func (d Document) DocumentNumber() string {
	name := "document_number"
	if d.Type == documents.TypeKTP {
		name = "nik"
	}
	f, _ := d.field(name)
	return f.Value
}

// Nationality is the holder's nationality as an ISO 3166-1 alpha-3 code ("" when unknown).
// A KTP is only issued to Indonesian citizens (WNI) and residents (WNA).
func (d Document) Nationality() string {
	if d.Type == documents.TypeKTP {
		if f, _ := d.field("nationality"); f.Value == "WNI" {
			return "IDN"
		}
		return ""
	}
	f, _ := d.field("nationality")
	return f.Value
}

// Lifetime is the KTP validity printed on cards issued since 2016 ("valid for life").
const Lifetime = "SEUMUR HIDUP"

var dmyRe = regexp.MustCompile(`^(\d{2})[-./ ](\d{2})[-./ ](\d{4})$`)

// Expiry is the document's expiry date. lifetime is true for a KTP valid for life; ok is
// false when no expiry could be read.
func (d Document) Expiry() (expiry time.Time, lifetime, ok bool) {
	switch d.Type {
	case documents.TypePassport:
		f, found := d.field("expiry_date")
		if !found {
			return time.Time{}, false, false
		}
		t, err := time.Parse(time.DateOnly, f.Value)
		return t, false, err == nil
	case documents.TypeKTP:
		f, found := d.field("valid_until")
		if !found {
			return time.Time{}, false, false
		}
		if strings.ReplaceAll(f.Value, " ", "") == strings.ReplaceAll(Lifetime, " ", "") {
			return time.Time{}, true, true
		}
		m := dmyRe.FindStringSubmatch(f.Value)
		if m == nil {
			return time.Time{}, false, false
		}
		t, err := time.Parse(time.DateOnly, m[3]+"-"+m[2]+"-"+m[1])
		return t, false, err == nil
	}
	return time.Time{}, false, false
}
