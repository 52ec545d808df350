// Package automation is the domain logic of the AI automation product: language-model
// steps that run inside durable workflows, with a person checking what matters.
//
// A Model answers one chat exchange (an OpenAI-compatible chat-completions endpoint in
// production, see NewModel; a server inside the tests). Ask runs one model step: it sends
// the prompt, parses the answer as JSON and validates it against the step's JSON Schema
// when it has one, and retries once with the validation error in the conversation before
// giving up with an *InvalidAnswerError. Errors are typed so that the activity calling Ask
// can tell Temporal, which owns retries, what to do: ErrNotConfigured and *InvalidAnswerError
// are final, *RateLimitedError carries the provider's Retry-After, *ProviderError says
// whether it is temporary.
//
// Guardrails live here as code: Redactor removes API keys, webhook secrets and the
// secret values a caller names (document passwords) from every prompt before it leaves the
// process, and Budget keeps an organisation within its daily token allowance.
//
// The package knows nothing of Temporal or the database.
package automation
