package identity

import (
	"fmt"
	"slices"
	"time"

	"github.com/svcplatform/svc/internal/documents"
)

// Policy limits and defaults.
const (
	DefaultMaxAttempts    = 3
	MaxMaxAttempts        = 10
	DefaultTimeToComplete = 7 * 24 * time.Hour
	MinTimeToComplete     = time.Minute
	MaxTimeToComplete     = 30 * 24 * time.Hour
	MaxMinimumAge         = 125
)

// DocumentTypes are the identity documents the documents engine reads and a policy may allow.
func DocumentTypes() []string { return []string{documents.TypePassport, documents.TypeKTP} }

// Policy is what a verification requires of the document and the person.
type Policy struct {
	// DocumentTypes are the accepted document types (DocumentTypes()); required, not empty.
	DocumentTypes []string `json:"documentTypes"`
	// MinimumAge in whole years on the day of the attempt; 0 means no age check.
	MinimumAge int `json:"minimumAge,omitempty"`
	// RequireScreening makes the sanctions and PEP screening of the person a required check.
	RequireScreening bool `json:"requireScreening,omitempty"`
	// MaxAttempts caps the attempts, resubmissions included; 0 means DefaultMaxAttempts.
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// TimeToCompleteSeconds is how long the person has before the verification expires;
	// 0 means DefaultTimeToComplete.
	TimeToCompleteSeconds int `json:"timeToCompleteSeconds,omitempty"`
}

// WithDefaults returns the policy with its zero limits set to the defaults.
func (p Policy) WithDefaults() Policy {
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.TimeToCompleteSeconds == 0 {
		p.TimeToCompleteSeconds = int(DefaultTimeToComplete / time.Second)
	}
	return p
}

// TimeToComplete is the policy's deadline as a duration.
func (p Policy) TimeToComplete() time.Duration {
	return time.Duration(p.WithDefaults().TimeToCompleteSeconds) * time.Second
}

// Allows reports whether the policy accepts documents of type t.
func (p Policy) Allows(t string) bool { return slices.Contains(p.DocumentTypes, t) }

// Validate returns the policy's problems keyed by field path under prefix ("policy"), the
// shape of the API's details.fieldErrors; nil when it is valid.
func (p Policy) Validate(prefix string) map[string][]string {
	fe := map[string][]string{}
	add := func(field, format string, args ...any) {
		fe[prefix+"."+field] = append(fe[prefix+"."+field], fmt.Sprintf(format, args...))
	}
	if len(p.DocumentTypes) == 0 {
		add("documentTypes", "must list at least one of %v", DocumentTypes())
	}
	seen := map[string]bool{}
	for i, t := range p.DocumentTypes {
		switch {
		case !slices.Contains(DocumentTypes(), t):
			fe[fmt.Sprintf("%s.documentTypes[%d]", prefix, i)] = []string{fmt.Sprintf("must be one of %v", DocumentTypes())}
		case seen[t]:
			fe[fmt.Sprintf("%s.documentTypes[%d]", prefix, i)] = []string{"is listed twice"}
		}
		seen[t] = true
	}
	if p.MinimumAge < 0 || p.MinimumAge > MaxMinimumAge {
		add("minimumAge", "must be between 0 and %d", MaxMinimumAge)
	}
	if p.MaxAttempts < 0 || p.MaxAttempts > MaxMaxAttempts {
		add("maxAttempts", "must be between 1 and %d", MaxMaxAttempts)
	}
	if s := p.TimeToCompleteSeconds; s != 0 && (s < int(MinTimeToComplete/time.Second) || s > int(MaxTimeToComplete/time.Second)) {
		add("timeToCompleteSeconds", "must be between %d and %d", int(MinTimeToComplete/time.Second), int(MaxTimeToComplete/time.Second))
	}
	if len(fe) == 0 {
		return nil
	}
	return fe
}
