// Package auth holds API keys, scopes, roles and the principal a request acts as.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"strings"
)

// Environments a key can be bound to.
const (
	Sandbox = "sandbox"
	Live    = "live"
)

// KeyPrefix starts every API key.
const KeyPrefix = "svc_sk_"

// SecretLen is the length of the base32 secret part of a key.
const SecretLen = 32

// ErrMalformedKey is returned for a value that is not svc_sk_<env>_<32 base32 chars>.
var ErrMalformedKey = errors.New("malformed key")

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewKey makes a fresh key for env: svc_sk_<env>_<32 base32 characters from crypto/rand>.
func NewKey(env string) string {
	var b [20]byte // 160 bits → exactly 32 base32 characters
	if _, err := rand.Read(b[:]); err != nil {
		panic("auth: crypto/rand failed: " + err.Error())
	}
	return KeyPrefix + env + "_" + b32.EncodeToString(b[:])
}

// ParseKey checks a key's shape and returns its environment. The secret is case-sensitive:
// only A-Z and 2-7 are accepted.
func ParseKey(key string) (env string, err error) {
	rest, ok := strings.CutPrefix(key, KeyPrefix)
	if !ok {
		return "", ErrMalformedKey
	}
	i := strings.IndexByte(rest, '_')
	if i < 0 {
		return "", ErrMalformedKey
	}
	env, secret := rest[:i], rest[i+1:]
	if env != Sandbox && env != Live {
		return "", ErrMalformedKey
	}
	if len(secret) != SecretLen {
		return "", ErrMalformedKey
	}
	for j := 0; j < len(secret); j++ {
		c := secret[j]
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return "", ErrMalformedKey
		}
	}
	return env, nil
}

// HashKey is the stored form of a key (and of a session token): hex SHA-256 of the whole value.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Last4 is the last four characters of a key, shown in masked form.
func Last4(key string) string {
	if len(key) < 4 {
		return key
	}
	return key[len(key)-4:]
}

// Mask shows a key as svc_sk_<env>_…WXYZ.
func Mask(env, last4 string) string {
	return KeyPrefix + env + "_…" + last4
}

// BearerToken extracts the token of an "Authorization: Bearer <token>" header value.
// It reports false for an empty header, another scheme or an empty token.
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}
