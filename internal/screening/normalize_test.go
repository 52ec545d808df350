package screening

import (
	"reflect"
	"testing"
)

func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"José  María GARCÍA-Márquez":  "jose maria garcia marquez",
		"O'Brien, Seán":               "obrien sean",
		"Владимир Владимирович Путин": "vladimir vladimirovich putin",
		"Сергей Шойгу":                "sergey shoygu",
		"Γιώργος Παπαδόπουλος":        "giorgos papadopoulos",
		"محمد":                         "mhmd",
		"عبد الله الحسن":               "abd allh al hsn",
		"رمضان":                        "rmdan",       // Arabic: dad is d
		"رمضان کریمی":                  "rmzan krimi", // Persian (keheh, farsi yeh): dad is z
		"رضا سلیمانی":                  "rza slimani",
		"Straße Müller ØRSTED Łódź":    "strasse muller orsted lodz",
		"ＦＵＬＬＷＩＤＴＨ Ｎａｍｅ":               "fullwidth name",
		"Nguyễn Văn An":                "nguyen van an",
		"Yılmaz Şahin Çelik":           "yilmaz sahin celik",
		"A\x00B\tC\u200bD":             "a b cd", // a zero-width space is a format character: it joins
		"习近平":                          "习近平",
		"  ":                           "",
		"Al-Qaida (AQ) & Co., L.L.C.!": "al qaida aq co l l c",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNameTokens(t *testing.T) {
	cases := []struct {
		in   string
		typ  EntityType
		want []string
	}{
		{"Golden Star Trading L.L.C.", Organization, []string{"golden", "star", "trading"}},
		{"ООО «Север Нефть»", Organization, []string{"sever", "neft"}},
		{"PT Sinar Jaya Abadi Tbk", Organization, []string{"sinar", "jaya", "abadi"}},
		{"Nordic Maritime GmbH", Unknown, []string{"nordic", "maritime"}},
		{"Obshchestvo s Ogranichennoy Otvetstvennostyu Vostok", Organization, []string{"vostok"}},
		{"Abu Bakr al-Baghdadi", Person, []string{"abu", "bakr", "baghdadi"}},
		{"Juan de la Cruz", Person, []string{"juan", "de", "la", "cruz"}},
		{"J. R. Smith", Person, []string{"j", "r", "smith"}},
		{"Ltd", Organization, []string{"ltd"}},
	}
	for _, c := range cases {
		if got := NameTokens(c.in, c.typ); !reflect.DeepEqual(got, c.want) {
			t.Errorf("NameTokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPhoneticAndSkeleton(t *testing.T) {
	same := [][2]string{{"mohammed", "muhammad"}, {"qasim", "kassem"}, {"omar", "umar"}, {"yusuf", "yousef"}}
	for _, p := range same {
		if Phonetic(p[0]) != Phonetic(p[1]) {
			t.Errorf("Phonetic(%q)=%q != Phonetic(%q)=%q", p[0], Phonetic(p[0]), p[1], Phonetic(p[1]))
		}
	}
	if Phonetic("smith") == Phonetic("jones") {
		t.Error("smith and jones share a phonetic key")
	}
	if Skeleton("mohammed") != Skeleton(Normalize("محمد")) {
		t.Errorf("skeletons differ: %q %q", Skeleton("mohammed"), Skeleton(Normalize("محمد")))
	}
}

func TestJaroWinkler(t *testing.T) {
	if got := JaroWinkler("martha", "marhta"); got < 0.96 || got > 0.962 {
		t.Errorf("JW(martha, marhta) = %v, want 0.961", got)
	}
	if JaroWinkler("abc", "xyz") != 0 || JaroWinkler("", "a") != 0 || JaroWinkler("same", "same") != 1 {
		t.Error("JW edge cases")
	}
}

func TestParseDate(t *testing.T) {
	ok := map[string]Date{"1960-01-02": {1960, 1, 2}, "1960": {1960, 0, 0}, "1960-05": {1960, 5, 0},
		"02 Jan 1960": {1960, 1, 2}, "2 January 1960": {1960, 1, 2}, "02/01/1960": {1960, 1, 2},
		"Jan 1960": {1960, 1, 0}, "circa 1960": {1960, 0, 0}}
	for in, want := range ok {
		if got, err := ParseDate(in); err != nil || got != want {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1960-02-30", "1960-13-01", "yesterday", "01 Foo 1960", "99999", "1799"} {
		if _, err := ParseDate(in); err == nil {
			t.Errorf("ParseDate(%q) accepted", in)
		}
	}
}
