package auth

import (
	"errors"

	"golang.org/x/crypto/bcrypt"
)

// Password length bounds, in bytes. bcrypt reads at most 72 bytes, so longer passwords are refused
// rather than silently truncated.
const (
	MinPasswordLen = 10
	MaxPasswordLen = 72
)

// ErrPasswordLength is returned for a password outside MinPasswordLen..MaxPasswordLen bytes.
var ErrPasswordLength = errors.New("password must be 10 to 72 bytes")

// dummyHash is checked against when no user matches, so a login for an unknown email costs the same time.
var dummyHash = []byte("$2a$10$GmzY94gL0dlYUwNvO8Hr5ucnedwCudshLVyc3hUZ48mWniltoMHEO")

// HashPassword returns the bcrypt hash (default cost) of password.
func HashPassword(password string) (string, error) {
	if len(password) < MinPasswordLen || len(password) > MaxPasswordLen {
		return "", ErrPasswordLength
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return "", err
	}
	return string(h), nil
}

// CheckPassword reports whether password matches hash, in constant time. An empty hash (a user
// without a password) never matches, but takes as long as a real check.
func CheckPassword(hash, password string) bool {
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}
