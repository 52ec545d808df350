// Package customers is the shared customer resource (cus_) that screening, fraud, identity and
// cases refer to: its types, its statuses and their transition table, and the validation of
// its fields. Pure: no database, no HTTP.
package customers

import (
	"regexp"
	"time"

	"github.com/svcplatform/svc/internal/statemachine"
)

// Type is whom a customer record describes.
type Type string

// Customer types.
const (
	TypePerson       Type = "person"
	TypeOrganisation Type = "organisation"
)

// Status is a customer's state: an inactive customer is kept (with its history) but left out
// of ongoing monitoring.
type Status string

// Customer statuses.
const (
	StatusActive   Status = "active"
	StatusInactive Status = "inactive"
)

// Statuses is the customer's transition table.
var Statuses = statemachine.New("customer", StatusActive, []Status{StatusActive, StatusInactive},
	statemachine.Move[Status]{From: StatusActive, To: StatusInactive, By: "PATCH status"},
	statemachine.Move[Status]{From: StatusInactive, To: StatusActive, By: "PATCH status"},
)

// Identifier is one of a customer's identifiers: a national id, a tax number, a passport, a
// company registration, ...
type Identifier struct {
	Type    string `json:"type"`
	Value   string `json:"value"`
	Country string `json:"country,omitempty"`
}

// Limits of the fields.
const (
	MaxName        = 300
	MaxIdentifiers = 20
	MaxIdentifier  = 100
)

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

// ValidCountry reports whether s is an ISO 3166-1 alpha-2 code in upper case.
func ValidCountry(s string) bool { return countryCode.MatchString(s) }

// ValidBirthDate reports whether s is a calendar date (YYYY-MM-DD) not after today.
func ValidBirthDate(s string, today time.Time) bool {
	d, err := time.Parse(time.DateOnly, s)
	return err == nil && !d.After(today)
}

// ValidType reports whether t is a customer type.
func ValidType(t Type) bool { return t == TypePerson || t == TypeOrganisation }
