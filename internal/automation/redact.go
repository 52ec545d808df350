package automation

import (
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces a secret removed from a prompt.
const Redacted = "[redacted]"

// secretPatterns match credentials of svc itself wherever they appear: API keys
// (svc_sk_<env>_<secret>, SPEC 5.2), webhook secrets (svc_whsec_…, and the Standard Webhooks
// form whsec_<base64> that receivers are given too), and the value of any
// JSON member or key=value pair whose name says it is secret (password, secret, apiKey,
// token, …), as rendered templates and case context print them.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`svc_sk_[A-Za-z0-9_]+`),
	regexp.MustCompile(`(?:svc_)?whsec_[A-Za-z0-9_+/=\-]+`),
	regexp.MustCompile(`(?i)("(?:[a-z_]*password|passphrase|[a-z_]*secret|api_?key|access_?token|refresh_?token|token|authorization)"\s*:\s*)"(?:[^"\\]|\\.)*"`),
	regexp.MustCompile(`(?i)\b((?:[a-z_]*password|passphrase|[a-z_]*secret|api_?key|access_?token|token)\s*[=:]\s*)[^\s"',;]+`),
	regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=\-]{8,}`),
}

// minSecretLen is the shortest named secret value redacted: shorter ones ("a", "1") would
// shred ordinary text and cannot be told apart from it.
const minSecretLen = 4

// Redactor removes secrets from text bound for a model. It is the one gate every prompt
// passes (Ask applies it to the system message and the prompt).
type Redactor struct {
	values []string
}

// NewRedactor returns a Redactor that also removes the given values (document passwords
// and the like), longest first so that one value inside another goes whole.
func NewRedactor(values ...string) *Redactor {
	r := &Redactor{}
	for _, v := range values {
		if len(strings.TrimSpace(v)) >= minSecretLen {
			r.values = append(r.values, v)
		}
	}
	sort.Slice(r.values, func(i, j int) bool { return len(r.values[i]) > len(r.values[j]) })
	return r
}

// Redact returns text with every secret replaced by Redacted.
func (r *Redactor) Redact(text string) string {
	for _, v := range r.values {
		text = strings.ReplaceAll(text, v, Redacted)
	}
	text = secretPatterns[0].ReplaceAllString(text, Redacted)
	text = secretPatterns[1].ReplaceAllString(text, Redacted)
	text = secretPatterns[2].ReplaceAllString(text, `${1}"`+Redacted+`"`)
	text = secretPatterns[3].ReplaceAllString(text, "${1}"+Redacted)
	text = secretPatterns[4].ReplaceAllString(text, "${1}"+Redacted)
	return text
}

// Leaks reports which of the Redactor's named values, and which svc credential patterns,
// text still holds outside the Redacted markers: empty for any output of Redact. Tests
// use it on what a model received.
func (r *Redactor) Leaks(text string) []string {
	var found []string
	for _, seg := range strings.Split(text, Redacted) {
		for _, v := range r.values {
			if strings.Contains(seg, v) {
				found = append(found, v)
			}
		}
		for _, p := range secretPatterns[:2] {
			found = append(found, p.FindAllString(seg, -1)...)
		}
	}
	return found
}
