package screening

// Transliteration tables to Latin, written for matching (not for display): they follow the
// common romanisations used on sanctions lists (BGN/PCGN-like for Cyrillic, ELOT-like for
// Greek, a simplified ALA-LC for Arabic and Persian without hamza and ain marks).

var cyrillic = map[rune]string{
	'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'ё': "e", 'ж': "zh",
	'з': "z", 'и': "i", 'й': "y", 'к': "k", 'л': "l", 'м': "m", 'н': "n", 'о': "o",
	'п': "p", 'р': "r", 'с': "s", 'т': "t", 'у': "u", 'ф': "f", 'х': "kh", 'ц': "ts",
	'ч': "ch", 'ш': "sh", 'щ': "shch", 'ъ': "", 'ы': "y", 'ь': "", 'э': "e", 'ю': "yu",
	'я': "ya",
	// Ukrainian, Belarusian, Serbian, Macedonian, Kazakh letters.
	'є': "ye", 'і': "i", 'ї': "yi", 'ґ': "g", 'ў': "u", 'ђ': "dj", 'ј': "j", 'љ': "lj",
	'њ': "nj", 'ћ': "c", 'џ': "dz", 'ѓ': "gj", 'ќ': "kj", 'ѕ': "dz", 'қ': "k", 'ғ': "g",
	'ң': "n", 'ү': "u", 'ұ': "u", 'һ': "h", 'ә': "a", 'ө': "o",
}

var greek = map[rune]string{
	'α': "a", 'β': "v", 'γ': "g", 'δ': "d", 'ε': "e", 'ζ': "z", 'η': "i", 'θ': "th",
	'ι': "i", 'κ': "k", 'λ': "l", 'μ': "m", 'ν': "n", 'ξ': "x", 'ο': "o", 'π': "p",
	'ρ': "r", 'σ': "s", 'ς': "s", 'τ': "t", 'υ': "y", 'φ': "f", 'χ': "ch", 'ψ': "ps",
	'ω': "o",
}

// greekPairs are digraphs read as one sound; checked before single letters.
var greekPairs = map[string]string{"ου": "ou", "αι": "ai", "ει": "ei", "οι": "oi", "μπ": "b", "ντ": "nt", "γκ": "g", "γγ": "ng"}

var arabic = map[rune]string{
	'ا': "a", 'أ': "a", 'إ': "i", 'آ': "a", 'ٱ': "a", 'ب': "b", 'ت': "t", 'ث': "th",
	'ج': "j", 'ح': "h", 'خ': "kh", 'د': "d", 'ذ': "dh", 'ر': "r", 'ز': "z", 'س': "s",
	'ش': "sh", 'ص': "s", 'ض': "d", 'ط': "t", 'ظ': "z", 'ع': "a", 'غ': "gh", 'ف': "f",
	'ق': "q", 'ك': "k", 'ل': "l", 'م': "m", 'ن': "n", 'ه': "h", 'ة': "a", 'ى': "a",
	'ء': "", 'ئ': "i", 'ؤ': "u", 'ـ': "",
	// Persian and Urdu letters.
	'پ': "p", 'چ': "ch", 'ژ': "zh", 'گ': "g", 'ک': "k", 'ی': "i", 'ہ': "h", 'ۃ': "a",
	// Short-vowel marks, when written: fatha, damma, kasra, tanwin; sukun writes nothing.
	'\u064E': "a", '\u064F': "u", '\u0650': "i", '\u064B': "an", '\u064C': "un", '\u064D': "in",
	'\u0652': "", '\u0670': "a",
}

// persianValues are the readings Persian and Urdu give to Arabic letters they pronounce
// otherwise: ذ, ض and ظ are all z (رضا is Reza, رمضان Ramezan), ث is s. They apply to a
// name written with a letter only Persian or Urdu use (persianLetters); Arabic keeps arabic's.
var persianValues = map[rune]string{'ذ': "z", 'ض': "z", 'ظ': "z", 'ث': "s"}

// persianLetters are letters of the Persian and Urdu alphabets that Arabic does not use
// (pe, che, zhe, gaf, keheh, farsi yeh).
const persianLetters = "پچژگکی"

// arabicGlide are waw and ya: consonants at the start of a word, long vowels elsewhere.
var arabicGlide = map[rune][2]string{'و': {"w", "u"}, 'ي': {"y", "i"}, 'ی': {"y", "i"}}

// latinFold are Latin letters that canonical decomposition does not reduce to ASCII.
var latinFold = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th",
	'ı': "i", 'ħ': "h", 'ŧ': "t", 'ŋ': "ng", 'ĸ': "k", 'ſ': "s", 'ƒ': "f", 'ɨ': "i",
	'ʼ': "", 'ʻ': "", 'ʿ': "", 'ʾ': "", '‘': "", '’': "", '`': "", '´': "", '\'': "",
}
