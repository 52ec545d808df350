// Package secrets encrypts secrets at rest (webhook signing secrets, document passwords) with
// AES-256-GCM.
//
// A sealed value is "v1:" followed by base64 (standard, unpadded) of a random
// 12-byte nonce and the ciphertext. Each value is bound to a context string
// (for example the id of the row holding it), so a sealed secret copied into
// another row does not open.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the key length in bytes (AES-256).
const KeySize = 32

const version = "v1:"

// ErrOpen is returned when a sealed value cannot be opened: malformed, another key, or another context.
var ErrOpen = errors.New("secrets: cannot open sealed value")

// Box seals and opens secrets with one key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// NewBox returns a Box for a KeySize-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secrets: key is %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return &Box{aead: aead}, nil
}

// NewBoxBase64 returns a Box for a key given in standard base64 (config secrets.key).
func NewBoxBase64(key string) (*Box, error) {
	b, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: key is not base64: %w", err)
	}
	return NewBox(b)
}

// ErrNoKey is returned by FromConfig when config secrets.key is not set.
var ErrNoKey = errors.New("config: secrets.key (SVC_SECRETS_KEY) is not set: 32 random bytes, base64")

// FromConfig is the platform's Box, built from config secrets.key (standard base64); every
// product that seals a secret uses it. It returns ErrNoKey when the key is empty.
func FromConfig(key string) (*Box, error) {
	if key == "" {
		return nil, ErrNoKey
	}
	box, err := NewBoxBase64(key)
	if err != nil {
		return nil, fmt.Errorf("config: secrets.key: %w", err)
	}
	return box, nil
}

// NewKey returns a fresh random key in standard base64, for svc dev to keep in its data directory.
func NewKey() (string, error) {
	var k [KeySize]byte
	if _, err := rand.Read(k[:]); err != nil {
		return "", fmt.Errorf("secrets: generate key: %w", err)
	}
	return base64.StdEncoding.EncodeToString(k[:]), nil
}

// Seal encrypts plaintext bound to context (e.g. "webhook:whk_...").
func (b *Box) Seal(plaintext []byte, context string) (string, error) {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secrets: nonce: %w", err)
	}
	out := b.aead.Seal(nonce, nonce, plaintext, []byte(context))
	return version + base64.RawStdEncoding.EncodeToString(out), nil
}

// Open decrypts a value sealed with the same key and context.
func (b *Box) Open(sealed, context string) ([]byte, error) {
	rest, ok := strings.CutPrefix(sealed, version)
	if !ok {
		return nil, fmt.Errorf("%w: unknown format", ErrOpen)
	}
	raw, err := base64.RawStdEncoding.DecodeString(rest)
	if err != nil || len(raw) < b.aead.NonceSize()+b.aead.Overhead() {
		return nil, fmt.Errorf("%w: malformed", ErrOpen)
	}
	n := b.aead.NonceSize()
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], []byte(context))
	if err != nil {
		return nil, fmt.Errorf("%w: wrong key or context", ErrOpen)
	}
	return plain, nil
}
