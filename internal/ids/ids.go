// Package ids makes the opaque identifiers of SPEC 2.1: "<prefix>_<26 characters>".
//
// The generated part is a ULID-style value in lowercase Crockford base32: 48 bits of
// milliseconds since the Unix epoch followed by 80 random bits from crypto/rand, so ids
// sort by creation time (cursor pagination relies on it) and cannot be guessed.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"time"
)

// Prefix is the type prefix of an identifier.
type Prefix string

// The prefixes of SPEC 2.1, plus the ones svc adds for its own records.
const (
	Event        Prefix = "evt"
	Delivery     Prefix = "whd"
	Webhook      Prefix = "whk"
	Organization Prefix = "org"
	Execution    Prefix = "exe"
	Workflow     Prefix = "wkf"
	Step         Prefix = "stp"
	Document     Prefix = "doc"
	Extraction   Prefix = "ext"
	Customer     Prefix = "cus"
	User         Prefix = "usr"
	APIKey       Prefix = "key"
	Approval     Prefix = "apr"
	Template     Prefix = "tpl"
	Session      Prefix = "ses"
	Audit        Prefix = "aud"
	// IdentityVerification and IdentityAttempt are the identity product's (ARCHITECTURE 3).
	IdentityVerification Prefix = "idv"
	IdentityAttempt      Prefix = "att"
	Analysis             Prefix = "ana"
	Screening            Prefix = "scr"
	List                 Prefix = "lst"
	Alert                Prefix = "alr"
	// Case and SARFiling are the cases product's: a case gathering alerts, a suspicious
	// activity report drafted from it.
	Case      Prefix = "cas"
	SARFiling Prefix = "sar"
	// Fraud product: decisions, rule sets (and their rules), device sessions, backtests; its
	// alerts are Alert's.
	Decision      Prefix = "dec"
	RuleSet       Prefix = "rul"
	DeviceSession Prefix = "dvs"
	Backtest      Prefix = "bkt"
	// Automation is a run of a built-in AI automation.
	Automation Prefix = "aut"
	// Idempotency is a remembered POST (SPEC 4.7); its generated part seeds the id of what the
	// POST creates (Rebrand), so that a retry creates the same record.
	Idempotency Prefix = "idm"
)

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// Len is the length of the generated part.
const Len = 26

// Rebrand returns id with its prefix replaced by p: the same generated part, so the same
// time, under another name.
func Rebrand(p Prefix, id string) string {
	_, rest, ok := strings.Cut(id, "_")
	if !ok {
		return New(p)
	}
	return string(p) + "_" + rest
}

// New returns a fresh id with the given prefix.
func New(p Prefix) string {
	return NewAt(p, time.Now())
}

// NewAt returns a fresh id whose time part is t.
func NewAt(p Prefix, t time.Time) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	if _, err := rand.Read(b[6:]); err != nil {
		panic("ids: crypto/rand failed: " + err.Error())
	}
	return string(p) + "_" + encode(b)
}

// Derive returns a deterministic id for a stable seed (same seed, same id): for records that an
// activity may write twice, such as events. Its time part is t, so it still sorts by time.
func Derive(p Prefix, t time.Time, random [10]byte) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	copy(b[6:], random[:])
	return string(p) + "_" + encode(b)
}

// DeriveFrom is Derive with the random part hashed from parts (SHA-256 of the parts joined
// by NUL): the id of a record named by other ids, such as a step (execution, node).
func DeriveFrom(p Prefix, t time.Time, parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	var random [10]byte
	copy(random[:], sum[:])
	return Derive(p, t, random)
}

// Within returns the id of a child record named by its parent's id and a key (a case's
// timeline entry): the parent's time part, the rest hashed from the parent and parts. The
// same parent and key always give the same id, whenever it is written, so a retried write
// finds the first one.
func Within(p Prefix, parent string, parts ...string) string {
	_, prest, _ := strings.Cut(parent, "_")
	d := DeriveFrom(p, time.UnixMilli(0), append([]string{parent}, parts...)...)
	if len(prest) != Len {
		return d
	}
	// The first 10 characters carry the 48-bit time (3 + 9 × 5 bits).
	return string(p) + "_" + prest[:10] + d[len(p)+1+10:]
}

func encode(b [16]byte) string {
	// 128 bits → 26 base32 characters (the first carries 3 bits).
	hi := binary.BigEndian.Uint64(b[0:8])
	lo := binary.BigEndian.Uint64(b[8:16])
	var out [Len]byte
	for i := Len - 1; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// Valid reports whether s is a well-formed id with prefix p.
func Valid(p Prefix, s string) bool {
	rest, ok := strings.CutPrefix(s, string(p)+"_")
	if !ok || len(rest) != Len || rest[0] > '7' {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(alphabet, rest[i]) < 0 {
			return false
		}
	}
	return true
}
