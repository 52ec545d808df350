package identity_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/identity"
)

func TestDefaultNameMatcher(t *testing.T) {
	m := identity.DefaultNameMatcher{}
	cases := []struct {
		claimed, printed string
		want             string // match, review or mismatch at the name check's bars
	}{
		{"Budi Santoso", "BUDI SANTOSO", "match"},
		{"Santoso, Budi", "BUDI SANTOSO", "match"},
		{"José Álvarez-Núñez", "JOSE ALVAREZ NUNEZ", "match"},
		{"Jürgen Müller", "JUERGEN MUELLER", "match"},
		{"Søren Kierkegaard", "SOREN KIERKEGAARD", "match"},
		{"Straße Groß", "STRASSE GROSS", "match"},
		{"Siobhán O'Brien", "SIOBHAN OBRIEN", "match"},
		{"Muhammad Abdulrahman", "MOHAMMED ABDUL RAHMAN", "match"},
		{"Soekarno Djojohadikoesoemo", "SUKARNO JOJOHADIKUSUMO", "match"},
		{"Tjahjo Kumolo", "CAHJO KUMOLO", "match"},
		{"Иван Петров", "IVAN PETROV", "match"},
		{"Андрей Соколов", "ANDREI SOKOLOV", "match"}, // й: screening writes y, ICAO i
		{"Γιώργος Παπαδόπουλος", "GIORGOS PAPADOPOULOS", "match"},
		{"محمد حسن", "MOHAMED HASAN", "match"},
		{"Sjahrir Njoman", "SYAHRIR NYOMAN", "match"},
		{"Siti Rahayu", "SITI RAHAYU", "match"},
		{"Siti Rahayu", "SITI RAHAYV", "match"}, // one OCR error
		{"Siti Nur Rahayu", "SITI RAHAYU", "review"},
		{"Budi Santoso", "AGUS SANTOSO", "mismatch"},
		{"Budi Santoso", "SITI RAHAYU", "mismatch"},
		{"Budi Santoso", "", "mismatch"},
		{"Ali", "OLA", "mismatch"},
	}
	for _, c := range cases {
		s := m.Match(c.claimed, c.printed)
		got := "mismatch"
		switch {
		case s >= identity.NameMatchThreshold:
			got = "match"
		case s >= identity.NameReviewThreshold:
			got = "review"
		}
		if got != c.want {
			t.Errorf("Match(%q, %q) = %.3f (%s), want %s", c.claimed, c.printed, s, got, c.want)
		}
	}
}

// Labelled name pairs generated from pools of names: the same person's name written the
// way documents and people write it, and different people's names.
var (
	givenPool = []string{"Budi", "Siti", "Agus", "Dewi", "Rina", "Andi", "Putri", "Wahyu", "Eko", "Fitri", "Hendra", "Yulia",
		"Muhammad", "Ahmad", "Fatimah", "José", "María", "Jürgen", "Zoë", "Søren", "François", "Łukasz", "Ana-Maria", "Nguyễn Văn",
		"Soekarno", "Tjahjo", "Djoko", "Bambang", "Kurniawati", "Sri Mulyani", "Aleksandr", "Jean-Pierre", "Björn", "Chloé"}
	surnamePool = []string{"Santoso", "Rahayu", "Wijaya", "Prasetyo", "Lestari", "Hartono", "Kusuma", "Siregar", "Nasution", "Pohan",
		"Gunawan", "Setiawan", "Müller", "Álvarez", "Núñez", "O'Brien", "Kowalski", "Dubois", "Hansen", "Papadopoulos",
		"Abdulrahman", "Hakim", "Sutrisno", "Tanjung", "Hidayat", "Saputra", "Purnomo", "Suryadi", "Lindqvist", "García"}
)

// icao writes a name as an MRZ does: upper case, ASCII, umlauts written out, apostrophes dropped.
func icao(s string) string {
	r := strings.NewReplacer("ä", "AE", "ö", "OE", "ü", "UE", "Ä", "AE", "Ö", "OE", "Ü", "UE", "ß", "SS", "'", "", "-", " ",
		"á", "A", "é", "E", "í", "I", "ó", "O", "ú", "U", "ñ", "N", "ç", "C", "ø", "O", "ł", "L", "Ł", "L", "ë", "E", "è", "E",
		"Á", "A", "É", "E", "Í", "I", "Ó", "O", "Ú", "U", "Ñ", "N", "ễ", "E", "ă", "A", "ọ", "O", "ô", "O")
	return strings.ToUpper(r.Replace(s))
}

// ocrSlip changes one letter of the longest word to a look-alike, as OCR does.
func ocrSlip(r *rand.Rand, s string) string {
	words := strings.Fields(s)
	longest := 0
	for i, w := range words {
		if len(w) > len(words[longest]) {
			longest = i
		}
	}
	w := []byte(words[longest])
	if len(w) < 6 {
		return s
	}
	look := map[byte]byte{'O': 'Q', 'I': 'L', 'U': 'V', 'E': 'F', 'A': 'R', 'N': 'M', 'S': '5', 'H': 'N', 'R': 'P', 'T': 'I', 'K': 'X', 'D': 'O'}
	for tries := 0; tries < 20; tries++ {
		i := 1 + r.IntN(len(w)-1)
		if to, ok := look[w[i]]; ok && to >= 'A' {
			w[i] = to
			words[longest] = string(w)
			return strings.Join(words, " ")
		}
	}
	return s
}

func TestNameMatcherAccuracyOnGeneratedPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2026))
	m := identity.DefaultNameMatcher{}
	person := func() (string, string) {
		return givenPool[r.IntN(len(givenPool))], surnamePool[r.IntN(len(surnamePool))]
	}
	const n = 600
	var posMatch, posReject, negMatch, negTotal int
	var misses []string
	for i := 0; i < n; i++ {
		g, s := person()
		claimed := g + " " + s
		var printed string
		switch i % 5 {
		case 0:
			printed = icao(g + " " + s)
		case 1:
			printed = icao(s + " " + g) // surname first
		case 2:
			printed = ocrSlip(r, icao(g+" "+s))
		case 3:
			claimed = strings.ToLower(s + ", " + g)
			printed = icao(g + " " + s)
		case 4:
			printed = strings.ToUpper(g + "  " + s)
		}
		score := m.Match(claimed, printed)
		if score >= identity.NameMatchThreshold {
			posMatch++
		} else if len(misses) < 10 {
			misses = append(misses, fmt.Sprintf("%q/%q=%.2f", claimed, printed, score))
		}
		if score < identity.NameReviewThreshold {
			posReject++
		}
		// A different person: another given name, another surname, or both.
		g2, s2 := person()
		switch i % 3 {
		case 0:
			g2 = g
		case 1:
			s2 = s
		}
		if g2 == g && s2 == s {
			continue
		}
		negTotal++
		if m.Match(claimed, icao(g2+" "+s2)) >= identity.NameMatchThreshold {
			negMatch++
			if len(misses) < 10 {
				misses = append(misses, fmt.Sprintf("false match %q/%q", claimed, icao(g2+" "+s2)))
			}
		}
	}
	recall := float64(posMatch) / n
	falseReject := float64(posReject) / n
	falseMatch := float64(negMatch) / float64(negTotal)
	t.Logf("same person verified %.3f, same person mismatched %.3f, different person verified %.4f (%d/%d)", recall, falseReject, falseMatch, negMatch, negTotal)
	// Bars: at least 97% of the same person's names verify, at most 1% are called a
	// mismatch, and no different person's name verifies.
	if recall < 0.97 || falseReject > 0.01 || negMatch > 0 {
		t.Errorf("below the bar (recall ≥ 0.97, false reject ≤ 0.01, no false match); examples: %v", misses)
	}
}
