// Package fraud is the anti-fraud engine, pure Go (no Temporal, no database): rules written in
// expr-lang over a transaction or event, the customer, the device, velocity features and the
// organisation's value lists; rule sets whose thresholds turn a score into an outcome; the
// four-eyes life cycle of rule-set versions; the bucket arithmetic of velocity counters; and the
// parsing of evaluation requests. The store and the API put it on the fast path.
package fraud
