package auth

import (
	"fmt"
	"slices"
	"strings"
)

// The products an organisation may be given (SPEC 1, 7.3 `org capability disabled`), named as
// Route.Product and every layer name them. The platform's own endpoints (keys, users, sessions,
// audit log, customers) belong to no product and are open to every organisation.
const (
	ProductOrchestration = "orchestration"
	ProductDocuments     = "documents"
	ProductWebhooks      = "webhooks"
	ProductScreening     = "screening"
	ProductFraud         = "fraud"
	ProductStatements    = "statements"
	ProductIdentity      = "identity"
	ProductAutomation    = "automation"
	ProductCases         = "cases"
)

// AllCapabilities is the stored capability set that grants every product, present and future:
// the dev organisation's and that of organisations created before capabilities existed.
const AllCapabilities = "*"

// Products lists every product name, in the order the docs list them.
func Products() []string {
	return []string{ProductOrchestration, ProductDocuments, ProductWebhooks, ProductScreening, ProductFraud,
		ProductStatements, ProductIdentity, ProductAutomation, ProductCases}
}

// Capabilities is an organisation's set of products.
type Capabilities struct {
	all      bool
	products []string
}

// ParseCapabilities reads the stored form: "*" or a comma-separated list of product names.
func ParseCapabilities(stored string) Capabilities {
	if strings.TrimSpace(stored) == AllCapabilities {
		return Capabilities{all: true}
	}
	var c Capabilities
	for _, p := range strings.Split(stored, ",") {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(c.products, p) {
			c.products = append(c.products, p)
		}
	}
	return c
}

// NewCapabilities validates names (each a product, or the single "*") and returns the set;
// the error names the first unknown product.
func NewCapabilities(names []string) (Capabilities, error) {
	if slices.Contains(names, AllCapabilities) {
		if len(names) != 1 {
			return Capabilities{}, fmt.Errorf(`"*" grants every product and stands alone`)
		}
		return Capabilities{all: true}, nil
	}
	var c Capabilities
	for _, n := range names {
		if !slices.Contains(Products(), n) {
			return Capabilities{}, fmt.Errorf("unknown product %q (products: %s)", n, strings.Join(Products(), ", "))
		}
		if !slices.Contains(c.products, n) {
			c.products = append(c.products, n)
		}
	}
	return c, nil
}

// Has reports whether the set grants product.
func (c Capabilities) Has(product string) bool { return c.all || slices.Contains(c.products, product) }

// All reports whether the set grants every product, present and future.
func (c Capabilities) All() bool { return c.all }

// List names the granted products, in Products order.
func (c Capabilities) List() []string {
	out := []string{}
	for _, p := range Products() {
		if c.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// String is the stored form.
func (c Capabilities) String() string {
	if c.all {
		return AllCapabilities
	}
	return strings.Join(c.List(), ",")
}
