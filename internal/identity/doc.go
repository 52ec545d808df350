// Package identity is the identity verification domain: a verification checks one person's
// identity document against the data they claimed, under a policy, in one or more attempts.
//
// It is pure Go (no Temporal, no database): the state machine of a verification (Table),
// the policy and the claimed data with their validation, the checks an attempt runs on what
// the documents engine (internal/documents) read from the uploaded image, and the decision
// that turns the checks into the verification's next state.
//
// Checks. Each check is one small type behind the Check interface and reports passed,
// failed or not_applicable with reason codes; DefaultChecks lists them in the order they
// are shown. Every failed reason code has a Severity that decides the outcome:
//   - final (under_minimum_age on a document whose birth date matches the claim): rejected;
//   - hard (expired, data mismatch, unreadable or not allowed document, failed MRZ check
//     digits): resubmission_requested while attempts remain, rejected after the last;
//   - doubtful (low OCR confidence, MRZ and printed fields disagreeing, a near-miss name,
//     a screening hit): review, decided by a person.
//
// Liveness and face matching (is a live person presenting the document, is it the face on
// the document) need trained models that this project cannot ship; they are not checks
// here. The Check interface is the place to add them: a new CheckType, a type with Run, and
// an entry in DefaultChecks; Decide needs no change.
package identity
