package documents_test

import (
	"errors"
	"math"
	"testing"

	docintel "github.com/svcplatform/svc/internal/documents"
)

func invoiceTemplate() docintel.Template {
	return docintel.Template{
		ID: "tpl_invoice", Type: "invoice",
		MustInclude: []string{"INVOICE", "PT MAJU JAYA"},
		MustExclude: []string{"NPWP"},
		Fields: []docintel.TemplateField{
			{Name: "invoice_number", Regex: `INV-(\d{4,})`, Required: true},
			{Name: "total", Label: "Total", Validator: "numeric", Required: true},
			{Name: "issued_at", Label: "Tanggal", Validator: "date"},
		},
	}
}

func TestClassify(t *testing.T) {
	tmpl := []docintel.Template{invoiceTemplate()}
	tests := []struct {
		name         string
		text         *docintel.TextResult
		wantType     string
		wantTemplate string
	}{
		{"npwp", textOf(0.95, "KEMENTERIAN KEUANGAN REPUBLIK INDONESIA", "DIREKTORAT JENDERAL PAJAK", "NPWP : 09.254.294.3-407.000", "Tanggal Terdaftar : 12/03/2015"), "npwp", ""},
		{"npwp read badly", textOf(0.6, "DIREKTORAT JENDERAI PAJAK", "NPVVP : 09.254.294.3-407.000", "Tanggal Terdaftar : 12/03/2015"), "npwp", ""},
		{"ktp", textOf(0.95, "PROVINSI DKI JAKARTA", "NIK : 3174054506900003", "Tempat/Tgl Lahir : JAKARTA, 05-06-1990", "Jenis Kelamin : PEREMPUAN", "Agama : ISLAM", "Kewarganegaraan : WNI"), "ktp", ""},
		{"passport", textOf(0.95, "PASPOR / PASSPORT", "P<IDNSANTOSO<<BUDI<<<<<<<<<<<<<<<<<<<<<<<<<<", "C4821937<2IDN8503127M3308213<<<<<<<<<<<<<<<2"), "passport", ""},
		{"custom template", textOf(0.95, "INVOICE", "PT MAJU JAYA", "No INV-20240117", "Total : 1.500.000", "Tanggal : 17/01/2024"), "invoice", "tpl_invoice"},
		{"template refused by a must-exclude keyword", textOf(0.95, "INVOICE PT MAJU JAYA", "NPWP : 09.254.294.3-407.000", "No INV-20240117", "Total : 1.500.000"), "npwp", ""},
		{"template missing a must-include keyword", textOf(0.95, "INVOICE", "No INV-20240117", "Total : 1.500.000"), docintel.TypeUnknown, ""},
		{"nothing known", textOf(0.95, "the quick brown fox", "jumps over the lazy dog"), docintel.TypeUnknown, ""},
		{"no text at all", &docintel.TextResult{}, docintel.TypeUnknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := docintel.Classify(tt.text, tmpl)
			if c.Type != tt.wantType || c.TemplateID != tt.wantTemplate {
				t.Fatalf("Classify = %s/%s %.3f (%v), want %s/%s", c.Type, c.TemplateID, c.Confidence, c.Scores, tt.wantType, tt.wantTemplate)
			}
			if c.Confidence < 0 || c.Confidence > 1 {
				t.Errorf("confidence %v out of range", c.Confidence)
			}
			if tt.wantTemplate != "" && (c.MatchConfidence < 0.9 || c.MatchConfidence > 1) {
				t.Errorf("matchConfidence = %.3f", c.MatchConfidence)
			}
		})
	}
}

func TestTemplateExtraction(t *testing.T) {
	tmpl := invoiceTemplate()
	x, err := docintel.Extract(textOf(0.95, "INVOICE", "PT MAJU JAYA", "No INV-20240117", "Total : 1.500.000", "Tanggal : 17/01/2024"), "invoice", &tmpl, docintel.ExtractOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"invoice_number": "20240117", "total": "1500000", "issued_at": "2024-01-17"}
	for k, v := range want {
		if got := x.Fields[k].Value; got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if x.TemplateID != "tpl_invoice" || x.Type != "invoice" || x.Fields["invoice_number"].Label != docintel.LabelPattern {
		t.Errorf("extraction = %+v", x)
	}
	if d := docintel.Decide(x, docintel.DefaultThreshold); d.Status != docintel.StatusExtracted {
		t.Errorf("decision %s %v", d.Status, d.Flags)
	}
}

func TestTemplateValidate(t *testing.T) {
	good := invoiceTemplate()
	if err := good.Validate(); err != nil {
		t.Fatalf("valid template refused: %v", err)
	}
	tests := []struct {
		name   string
		modify func(*docintel.Template)
		path   string
	}{
		{"built-in type", func(t *docintel.Template) { t.Type = "npwp" }, "type"},
		{"bad type", func(t *docintel.Template) { t.Type = "Invoice Type" }, "type"},
		{"no keyword", func(t *docintel.Template) { t.MustInclude = nil }, "mustInclude"},
		{"punctuation keyword", func(t *docintel.Template) { t.MustExclude = []string{"::"} }, "mustExclude[0]"},
		{"no fields", func(t *docintel.Template) { t.Fields = nil }, "fields"},
		{"field without label or regex", func(t *docintel.Template) { t.Fields[0].Regex = "" }, "fields[0]"},
		{"regex that does not compile", func(t *docintel.Template) { t.Fields[0].Regex = "INV-(\\d+" }, "fields[0].regex"},
		{"unknown validator", func(t *docintel.Template) { t.Fields[1].Validator = "iban" }, "fields[1].validator"},
		{"duplicate field", func(t *docintel.Template) { t.Fields[2].Name = "total" }, "fields[2].name"},
		{"bad field name", func(t *docintel.Template) { t.Fields[2].Name = "Issued At" }, "fields[2].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := invoiceTemplate()
			tt.modify(&tm)
			var te *docintel.TemplateError
			if err := tm.Validate(); !errors.As(err, &te) || te.Fields[tt.path] == "" {
				t.Errorf("Validate() = %v, want an error at %s", err, tt.path)
			}
		})
	}
}

func TestFieldConfidence(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		f    docintel.Field
		want float64
	}{
		{"text layer, exact label", docintel.Field{OCRConfidence: 0.99, Label: docintel.LabelExact}, 0.99},
		{"fuzzy label", docintel.Field{OCRConfidence: 0.99, Label: docintel.LabelFuzzy}, 0.911},
		{"position only", docintel.Field{OCRConfidence: 0.9, Label: docintel.LabelPosition}, 0.765},
		{"check digit passed", docintel.Field{OCRConfidence: 0.5, Label: docintel.LabelMRZ, Validator: "mrz", Valid: &yes}, 0.95},
		{"luhn over part of the number", docintel.Field{OCRConfidence: 0.7, Label: docintel.LabelExact, Validator: "npwp", Valid: &yes}, 0.82},
		{"check digit failed", docintel.Field{OCRConfidence: 0.99, Label: docintel.LabelExact, Validator: "npwp", Valid: &no}, docintel.FailedCheckCap},
		{"repaired characters", docintel.Field{OCRConfidence: 0.9, Label: docintel.LabelExact, Repaired: true}, 0.81},
		{"missing", docintel.Field{Label: docintel.LabelMissing}, 0},
	}
	for _, tt := range tests {
		if got := docintel.FieldConfidence(tt.f); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: FieldConfidence = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDecide(t *testing.T) {
	yes := true
	x := &docintel.Extraction{Type: "npwp", Fields: map[string]docintel.Field{
		"npwp_number":   {Value: "09.254.294.3-407.000", OCRConfidence: 0.9, Label: docintel.LabelExact, Required: true, Validator: "npwp", Valid: &yes},
		"name":          {Value: "BUDI", OCRConfidence: 0.85, Label: docintel.LabelExact, Required: true},
		"registered_at": {Value: "x", OCRConfidence: 0.2, Label: docintel.LabelExact},
	}}
	d := docintel.Decide(x, 0.8)
	if d.ConfidenceScore != 0.85 || d.Status != docintel.StatusExtracted || len(d.Flags) != 0 {
		t.Errorf("score is the lowest required field's: %+v", d)
	}
	if d.Values()["name"] != "BUDI" {
		t.Errorf("values = %v", d.Values())
	}
	if d = docintel.Decide(x, 0.86); d.Status != docintel.StatusRequiresReview || d.Flags[0] != "low_confidence:name" {
		t.Errorf("below the organisation's threshold: %+v", d)
	}
	x.Flags = []string{"expired"}
	if d = docintel.Decide(x, 0.5); d.Status != docintel.StatusRequiresReview {
		t.Errorf("a flag forces review: %+v", d)
	}
	if d = docintel.Decide(&docintel.Extraction{Fields: map[string]docintel.Field{}}, 0.8); d.ConfidenceScore != 0 || d.Status != docintel.StatusRequiresReview {
		t.Errorf("nothing extracted: %+v", d)
	}
}
