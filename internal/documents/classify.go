package documents

import (
	"regexp"
	"sort"
)

// Classification is the result of Classify.
type Classification struct {
	// Type is a built-in type, a matching template's Type, or TypeUnknown.
	Type string `json:"type"`
	// Confidence (0..1) is the winner's score, lowered when the runner-up is close; for
	// TypeUnknown it is 1 − the best candidate's score (how clearly nothing matched).
	Confidence float64 `json:"confidence"`
	// TemplateID and MatchConfidence are set when a custom template won.
	TemplateID      string  `json:"templateId,omitempty"`
	MatchConfidence float64 `json:"matchConfidence,omitempty"`
	// Scores has every candidate's score, keyed by built-in type or "template:<id>".
	Scores map[string]float64 `json:"scores"`
}

// signature describes how a built-in type shows itself: weighted phrases and patterns.
type signature struct {
	phrases  map[string]float64
	patterns map[*regexp.Regexp]float64
}

var mrzLineRe = regexp.MustCompile(`^P[A-Z<][A-Z<]{3}[A-Z<]{20,}`)

var signatures = map[string]signature{
	TypeNPWP: {
		phrases:  map[string]float64{"NPWP": 3, "Direktorat Jenderal Pajak": 2, "Kementerian Keuangan": 1, "Terdaftar": 1, "KPP": 1},
		patterns: map[*regexp.Regexp]float64{npwpNumberRe: 2},
	},
	TypeKTP: {
		phrases: map[string]float64{
			"NIK": 2, "Provinsi": 1, "Tempat/Tgl Lahir": 2, "Jenis Kelamin": 1, "Gol. Darah": 1, "Kel/Desa": 1,
			"Kecamatan": 1, "Agama": 1, "Status Perkawinan": 1, "Kewarganegaraan": 1, "Berlaku Hingga": 1,
		},
		patterns: map[*regexp.Regexp]float64{nikRe: 1},
	},
	TypePassport: {
		phrases:  map[string]float64{"Passport": 2, "Paspor": 1, "Nationality": 1, "Date of Expiry": 1, "Date of Birth": 1},
		patterns: map[*regexp.Regexp]float64{mrzLineRe: 4},
	},
}

// MinClassificationScore is the score below which a document is TypeUnknown.
const MinClassificationScore = 0.35

// Classify scores the text against the built-in types and the given templates and picks
// the best. A built-in type scores the weighted share of its phrases and patterns found
// (a phrase read with OCR errors counts 0.8). A template scores 0 when a must-include
// keyword is missing or a must-exclude keyword is present; otherwise the mean quality of
// its keywords times 0.6 + 0.4 × the share of its required fields that can be located.
// A template wins ties: it is the organisation's own, more specific definition.
func Classify(text *TextResult, templates []Template) Classification {
	var lines []Line
	if text != nil {
		lines = text.Lines
	}
	c := Classification{Type: TypeUnknown, Scores: map[string]float64{}}
	var scores []float64
	for _, t := range BuiltinTypes() {
		s := signatureScore(lines, signatures[t])
		c.Scores[t] = round3(s)
		scores = append(scores, s)
		if s > c.Confidence {
			c.Type, c.Confidence = t, s
		}
	}
	for _, t := range templates {
		if t.Validate() != nil {
			continue
		}
		s := templateScore(lines, t)
		c.Scores["template:"+t.ID] = round3(s)
		scores = append(scores, s)
		if s > 0 && s >= c.Confidence {
			c.Type, c.Confidence, c.TemplateID, c.MatchConfidence = t.Type, s, t.ID, round3(s)
		}
	}
	if c.Confidence < MinClassificationScore {
		return Classification{Type: TypeUnknown, Confidence: round3(1 - c.Confidence), Scores: c.Scores}
	}
	// A close runner-up makes the choice less certain.
	sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
	if len(scores) > 1 && scores[0] > 0 {
		margin := (scores[0] - scores[1]) / scores[0]
		c.Confidence *= min(1, 0.5+margin)
	}
	c.Confidence = round3(c.Confidence)
	return c
}

func signatureScore(lines []Line, s signature) float64 {
	total, got := 0.0, 0.0
	for p, w := range s.phrases {
		total += w
		got += w * phraseQuality(lines, p)
	}
	for re, w := range s.patterns {
		total += w
		for _, l := range lines {
			if re.MatchString(l.Text()) || re.MatchString(cleanMRZLine(l.Text())) {
				got += w
				break
			}
		}
	}
	if total == 0 {
		return 0
	}
	return got / total
}

func templateScore(lines []Line, t Template) float64 {
	for _, k := range t.MustExclude {
		if phraseQuality(lines, k) > 0 {
			return 0
		}
	}
	sum := 0.0
	for _, k := range t.MustInclude {
		q := phraseQuality(lines, k)
		if q == 0 {
			return 0
		}
		sum += q
	}
	kw := sum / float64(len(t.MustInclude))
	x := &Extraction{Fields: map[string]Field{}}
	extractTemplate(x, lines, t, ExtractOptions{})
	req, found := 0, 0
	for _, f := range t.Fields {
		if f.Required || !anyRequired(t) {
			req++
			if x.Fields[f.Name].Label != LabelMissing {
				found++
			}
		}
	}
	share := 1.0
	if req > 0 {
		share = float64(found) / float64(req)
	}
	return kw * (0.6 + 0.4*share)
}

func anyRequired(t Template) bool {
	for _, f := range t.Fields {
		if f.Required {
			return true
		}
	}
	return false
}

func round3(v float64) float64 {
	return float64(int(v*1000+0.5)) / 1000
}
