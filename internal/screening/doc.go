// Package screening is the AML screening engine: it normalises and transliterates names,
// loads sanctions lists (OFAC legacy CSV, UN consolidated XML, OpenSanctions
// targets.simple.csv, an organisation's own CSV), indexes them with phonetic and n-gram
// blocking, and scores a query against the candidates with an explanation per hit.
//
// The pipeline, each step a plain function or method without I/O beyond its reader:
//
//	Normalize / Tokens   NFKC, transliteration (Cyrillic, Greek, Arabic, Persian), diacritics,
//	                     case, punctuation, organisation legal forms and stop words
//	Load*                streaming list parsers returning []Entity or a *ParseError
//	NewIndex / Search    blocking by token keys, scoring of the best candidates only
//	Hash / Diff          content hash of a list version and its delta to the previous one
//
// A score is a name score (order independent token alignment with initials, particles,
// glued and split tokens, Jaro-Winkler gated by phonetic and consonant keys, weighted by
// token rarity) adjusted by qualifiers: birth date, country and entity type.
package screening
