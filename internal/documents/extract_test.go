package documents_test

import (
	"slices"
	"strings"
	"testing"

	docintel "github.com/svcplatform/svc/internal/documents"
)

// textOf builds OCR-like text: one line per string, words split on spaces, a run of three
// spaces marking a column gap, every word with the given confidence.
func textOf(conf float64, lines ...string) *docintel.TextResult {
	t := &docintel.TextResult{Source: docintel.SourceOCR, Pages: 1}
	for _, l := range lines {
		line := docintel.Line{Page: 1, Source: docintel.SourceOCR}
		for ci, col := range strings.Split(l, "   ") {
			for wi, w := range strings.Fields(col) {
				line.Words = append(line.Words, docintel.Word{Text: w, Conf: conf, Gap: ci > 0 && wi == 0})
			}
		}
		t.Lines = append(t.Lines, line)
	}
	return t
}

func extract(t *testing.T, docType string, text *docintel.TextResult) (*docintel.Extraction, *docintel.Decision) {
	t.Helper()
	x, err := docintel.Extract(text, docType, nil, docintel.ExtractOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return x, docintel.Decide(x, docintel.DefaultThreshold)
}

func TestExtractNPWP(t *testing.T) {
	tests := []struct {
		name       string
		text       *docintel.TextResult
		want       map[string]string
		wantLabel  map[string]docintel.LabelMatch
		wantStatus docintel.Status
		wantFlags  []string
	}{
		{
			name: "labelled card, OCR errors in labels and separators",
			text: textOf(0.95, "DIREKTORAT JENDERAL PAJAK", "NPWP ; 09.254,294.3-407.000", "Narna : BUDI SANTOSO",
				"NIK : 3174051203850007", "Alamat : JL. MERDEKA NO. 10", "KEBAYORAN BARU", "KPP PRATAMA KEBAYORAN BARU", "Tanggal Terdaftar : 12/03/2015"),
			want:       map[string]string{"npwp_number": "09.254.294.3-407.000", "name": "BUDI SANTOSO", "address": "JL. MERDEKA NO. 10 KEBAYORAN BARU", "registered_at": "2015-03-12"},
			wantLabel:  map[string]docintel.LabelMatch{"name": docintel.LabelFuzzy, "npwp_number": docintel.LabelExact},
			wantStatus: docintel.StatusExtracted,
		},
		{
			name: "older card without name and address labels",
			text: textOf(0.99, "NPWP : 09.254.294.3-407.000", "BUDI SANTOSO", "NIK : 3174051203850007", "JL. MERDEKA NO. 10", "KEBAYORAN BARU",
				"KPP PRATAMA KEBAYORAN BARU", "Tanggal Terdaftar : 12/03/2015"),
			want:       map[string]string{"name": "BUDI SANTOSO", "address": "JL. MERDEKA NO. 10 KEBAYORAN BARU"},
			wantLabel:  map[string]docintel.LabelMatch{"name": docintel.LabelPosition, "address": docintel.LabelPosition},
			wantStatus: docintel.StatusExtracted,
		},
		{
			name:       "number without its label is found by its shape",
			text:       textOf(0.99, "KARTU 09.254.294.3-407.000", "Nama : BUDI SANTOSO", "Alamat : JL. MERDEKA NO. 10"),
			want:       map[string]string{"npwp_number": "09.254.294.3-407.000"},
			wantLabel:  map[string]docintel.LabelMatch{"npwp_number": docintel.LabelPattern},
			wantStatus: docintel.StatusExtracted,
		},
		{
			name:       "an unreadable number is not replaced by the NIK",
			text:       textOf(0.95, "NPWP : O9.Z5A.2R4.3", "Nama : BUDI SANTOSO", "NIK : 3174051203850007", "Alamat : JL. MERDEKA NO, 10"),
			want:       map[string]string{"npwp_number": "", "address": "JL. MERDEKA NO. 10"},
			wantStatus: docintel.StatusRequiresReview,
			wantFlags:  []string{"missing:npwp_number"},
		},
		{
			name:       "without an NPWP label, the NIK line is not the number",
			text:       textOf(0.95, "Nama : BUDI SANTOSO", "NIK : 3174051203850007", "Alamat : JL. MERDEKA NO. 10"),
			want:       map[string]string{"npwp_number": ""},
			wantStatus: docintel.StatusRequiresReview,
			wantFlags:  []string{"missing:npwp_number"},
		},
		{
			name:       "OCR dashes in the number",
			text:       textOf(0.95, "NPWP : 09.254.294.3—407.000", "Nama : BUDI SANTOSO", "Alamat : JL. MERDEKA NO. 10"),
			want:       map[string]string{"npwp_number": "09.254.294.3-407.000"},
			wantStatus: docintel.StatusExtracted,
		},
		{
			name:       "a wrong check digit caps the number and flags it",
			text:       textOf(0.99, "NPWP : 09.254.294.8-407.000", "Nama : BUDI SANTOSO", "Alamat : JL. MERDEKA NO. 10"),
			wantStatus: docintel.StatusRequiresReview,
			wantFlags:  []string{"npwp_number:check_digit"},
		},
		{
			name:       "a letter read for a digit is repaired",
			text:       textOf(0.97, "NPWP : O9.254.294.3-4O7.000", "Nama : BUDI SANTOSO", "Alamat : JL. MERDEKA NO. 10"),
			want:       map[string]string{"npwp_number": "09.254.294.3-407.000"},
			wantStatus: docintel.StatusExtracted,
		},
		{
			name:       "16-digit NPWP (the NIK form)",
			text:       textOf(0.99, "NPWP : 3174051203850007", "Nama : BUDI SANTOSO", "Alamat : JL. MERDEKA NO. 10"),
			want:       map[string]string{"npwp_number": "3174051203850007"},
			wantStatus: docintel.StatusExtracted,
		},
		{
			name:       "low OCR confidence asks for review",
			text:       textOf(0.6, "NPWP : 09.254.294.3-407.000", "Nama : BUDI SANTOSO", "Alamat : JL. MERDEKA NO. 10"),
			wantStatus: docintel.StatusRequiresReview,
			wantFlags:  []string{"low_confidence:name", "low_confidence:address"},
		},
		{
			name:       "missing address",
			text:       textOf(0.99, "NPWP : 09.254.294.3-407.000", "Nama : BUDI SANTOSO"),
			wantStatus: docintel.StatusRequiresReview,
			wantFlags:  []string{"missing:address"},
		},
		{
			name:       "a digit inside a name is an OCR error",
			text:       textOf(0.99, "NPWP : 09.254.294.3-407.000", "Nama : BUD1 SANTOSO", "Alamat : JL. MERDEKA NO. 10"),
			wantStatus: docintel.StatusRequiresReview,
			wantFlags:  []string{"name:unexpected_digit"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, d := extract(t, docintel.TypeNPWP, tt.text)
			for k, v := range tt.want {
				if got := x.Fields[k].Value; got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			for k, l := range tt.wantLabel {
				if got := x.Fields[k].Label; got != l {
					t.Errorf("%s label = %s, want %s", k, got, l)
				}
			}
			if d.Status != tt.wantStatus {
				t.Errorf("status = %s (score %.3f, flags %v), want %s", d.Status, d.ConfidenceScore, d.Flags, tt.wantStatus)
			}
			for _, f := range tt.wantFlags {
				if !slices.Contains(d.Flags, f) {
					t.Errorf("flags %v lack %s", d.Flags, f)
				}
			}
			if tt.wantStatus == docintel.StatusExtracted && len(d.Flags) > 0 {
				t.Errorf("unexpected flags %v", d.Flags)
			}
		})
	}
}

func TestExtractKTP(t *testing.T) {
	card := func(nik, birth, gender, province string) *docintel.TextResult {
		return textOf(0.95, "PROVINSI "+province, "KOTA JAKARTA SELATAN", "NIK : "+nik, "Nama   : SITI RAHAYU",
			"Tempat/Tgl Lahir   : JAKARTA, "+birth, "Jenis Kelamin   : "+gender+" Gol. Darah : O", "Alamat   : JL. KEMANG RAYA NO. 5",
			"RT/RW   : 003/007", "Kel/Desa   : BANGKA", "Kecamatan   : MAMPANG PRAPATAN", "Agama   : ISLAM")
	}
	tests := []struct {
		name       string
		text       *docintel.TextResult
		wantStatus docintel.Status
		wantFlags  []string
	}{
		{"consistent card", card("3174054506900003", "05-06-1990", "PEREMPUAN", "DKI JAKARTA"), docintel.StatusExtracted, nil},
		{"printed birth date disagrees with the NIK", card("3174054506900003", "06-05-1990", "PEREMPUAN", "DKI JAKARTA"), docintel.StatusRequiresReview, []string{"nik_birth_date_mismatch", "birth_date:nik_mismatch"}},
		{"a man's NIK on a woman's card", card("3174050506900003", "05-06-1990", "PEREMPUAN", "DKI JAKARTA"), docintel.StatusRequiresReview, []string{"nik_gender_mismatch"}},
		{"province disagrees with the NIK", card("3174054506900003", "05-06-1990", "PEREMPUAN", "JAWA TIMUR"), docintel.StatusRequiresReview, []string{"nik_province_mismatch"}},
		{"impossible NIK date", card("3174057306900003", "05-06-1990", "PEREMPUAN", "DKI JAKARTA"), docintel.StatusRequiresReview, []string{"nik:date"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, d := extract(t, docintel.TypeKTP, tt.text)
			if d.Status != tt.wantStatus {
				t.Errorf("status = %s (flags %v)", d.Status, d.Flags)
			}
			for _, f := range tt.wantFlags {
				if !slices.Contains(d.Flags, f) {
					t.Errorf("flags %v lack %s", d.Flags, f)
				}
			}
			if tt.wantStatus == docintel.StatusExtracted {
				want := map[string]string{"nik": "3174054506900003", "name": "SITI RAHAYU", "birth_place": "JAKARTA", "birth_date": "1990-06-05",
					"gender": "PEREMPUAN", "blood_type": "O", "address": "JL. KEMANG RAYA NO. 5", "rt_rw": "003/007", "village": "BANGKA",
					"district": "MAMPANG PRAPATAN", "religion": "ISLAM", "province": "DKI JAKARTA"}
				for k, v := range want {
					if got := x.Fields[k].Value; got != v {
						t.Errorf("%s = %q, want %q", k, got, v)
					}
				}
				// The NIK and the printed date confirm each other: both are near-certain.
				if c := d.Fields["birth_date"].Confidence; c < 0.99 {
					t.Errorf("cross-checked birth date confidence %.3f", c)
				}
			}
		})
	}
}

func TestExtractPassport(t *testing.T) {
	const l1 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
	tests := []struct {
		name       string
		lines      []string
		wantStatus docintel.Status
		wantFlags  []string
		wantNumber string
	}{
		{"valid MRZ confirmed by the visual zone", []string{"PASSPORT", "Full Name", "ANNA MARIA ERIKSSON", l1, "L898902C36UTO7408122F1204159ZE184226B<<<<<10"}, docintel.StatusRequiresReview, []string{"expired"}, "L898902C3"},
		{"OCR split the line and doubled a character", []string{"PASSPORT", l1, "L898902C36UTO74081222F1204159ZE184226B<<<< <10"}, docintel.StatusRequiresReview, []string{"expired"}, "L898902C3"},
		{"wrong document number check digit", []string{"PASSPORT", l1, "L898902C37UTO7408122F1204159ZE184226B<<<<<10"}, docintel.StatusRequiresReview, []string{"document_number:check_digit", "mrz_composite_check_failed"}, "L898902C3"},
		{"visual name differs from the MRZ", []string{"Full Name", "ANNA ERIKSSON", l1, "L898902C36UTO7408122F1204159ZE184226B<<<<<10"}, docintel.StatusRequiresReview, []string{"mrz_name_mismatch"}, "L898902C3"},
		{"no MRZ", []string{"PASSPORT", "Full Name", "ANNA MARIA ERIKSSON"}, docintel.StatusRequiresReview, []string{"mrz_not_found", "missing:document_number"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, d := extract(t, docintel.TypePassport, textOf(0.9, tt.lines...))
			if d.Status != tt.wantStatus {
				t.Errorf("status = %s (flags %v)", d.Status, d.Flags)
			}
			for _, f := range tt.wantFlags {
				if !slices.Contains(d.Flags, f) {
					t.Errorf("flags %v lack %s", d.Flags, f)
				}
			}
			if got := x.Fields["document_number"].Value; got != tt.wantNumber {
				t.Errorf("document_number = %q, want %q", got, tt.wantNumber)
			}
		})
	}
	// OCR dropped the first letter of the document number: realigning the line cannot
	// bring it back, and the number must not come out confirmed.
	_, d0 := extract(t, docintel.TypePassport, textOf(0.9, l1, "898902C36UTO7408122F1204159ZE184226B<<<<<10"))
	if f := d0.Fields["document_number"]; f.Confidence >= docintel.DefaultThreshold || d0.Status != docintel.StatusRequiresReview {
		t.Errorf("misread document number %q confidence %.3f, status %s", f.Value, f.Confidence, d0.Status)
	}

	// A valid, unexpired passport is extracted.
	x, d := extract(t, docintel.TypePassport, textOf(0.9, "Full Name", "BUDI SANTOSO",
		"P<IDNSANTOSO<<BUDI<<<<<<<<<<<<<<<<<<<<<<<<<<", "C4821937<2IDN8503127M3308213<<<<<<<<<<<<<<<2"))
	if d.Status != docintel.StatusExtracted {
		t.Errorf("valid passport: %s %v %.3f", d.Status, d.Flags, d.ConfidenceScore)
	}
	want := map[string]string{"document_number": "C4821937", "surname": "SANTOSO", "given_names": "BUDI", "nationality": "IDN",
		"birth_date": "1985-03-12", "expiry_date": "2033-08-21", "sex": "M"}
	for k, v := range want {
		if got := x.Fields[k].Value; got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

func TestExtractUnknownType(t *testing.T) {
	if _, err := docintel.Extract(textOf(1, "x"), "invoice", nil, docintel.ExtractOptions{}); docintel.StageOf(err) != docintel.StageExtract {
		t.Errorf("unknown type error = %v", err)
	}
	x, d := extract(t, docintel.TypeUnknown, textOf(1, "hello"))
	if len(x.Fields) != 0 || d.Status != docintel.StatusRequiresReview || !slices.Contains(d.Flags, "unclassified") || d.ConfidenceScore != 0 {
		t.Errorf("unknown: %+v %+v", x, d)
	}
}
