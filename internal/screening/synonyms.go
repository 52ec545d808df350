package screening

import "strings"

// romanisations are spellings of one name in different romanisation systems (pinyin,
// Wade-Giles, Cantonese and Korean spellings of family names; common Arabic and Slavic
// variants that string distance alone misses). Each line is one name.
var romanisations = buildSynonyms(`
zhou chou chow jhou
zhang chang cheung jang
wang wong
huang hwang wong
li lee lei yi rhee ri rhie
chen chan chin tan
liu lau lew
xu hsu tsui hui
zhao chao chiu
zhu chu chew
guo kuo kwok
gao kao ko
luo lo law
zheng cheng chung
yang yeung young
he ho
lin lam lim
wu woo ng
sun suen
xie hsieh tse
park pak bak
choi choe chey
jung jeong chung
kang gang
cho jo
yoon yun
kim gim
lim im
zhukov joukov schukow
yusuf youssef yousef iosif
hussein husayn hossein hussain husein
`)

func buildSynonyms(text string) map[string]int {
	m := map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		for _, w := range strings.Fields(line) {
			if _, ok := m[w]; !ok {
				m[w] = i + 1
			}
		}
	}
	return m
}

// synonyms reports whether two tokens are romanisations of the same name.
func synonyms(a, b string) bool {
	x, ok := romanisations[a]
	return ok && x == romanisations[b]
}
