package screening

import "math"

// slipForms are the written-out single-word legal forms long enough that one slip of the
// pen (Compnay, Limted, Corporaton) cannot turn another word into them.
var slipForms = func() []string {
	var out []string
	for w, phrases := range legalForms {
		for _, p := range phrases {
			if len(p) == 1 && len(w) >= 6 {
				out = append(out, w)
			}
		}
	}
	return out
}()

// misspeltLegalForm reports whether a token is a long legal form with one edit (two for
// forms of nine letters or more). The index drops such a token from an organisation query
// only when the list never uses it: then it identifies nobody, and it is most likely the
// legal form the list's names have already shed.
func misspeltLegalForm(tok string) bool {
	if len(tok) < 5 {
		return false
	}
	for _, f := range slipForms {
		allowed := 1
		if len(f) >= 9 {
			allowed = 2
		}
		longer := float64(max(len(tok), len(f)))
		if d := int(math.Round((1 - EditSimilarity(tok, f)) * longer)); d <= allowed {
			return true
		}
	}
	return false
}
