package secrets

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func box(t *testing.T, fill byte) *Box {
	t.Helper()
	b, err := NewBox(bytes.Repeat([]byte{fill}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSealOpen(t *testing.T) {
	b := box(t, 1)
	secret := []byte("svc_whsec_abc")
	s1, err := b.Seal(secret, "webhook:whk_1")
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := b.Seal(secret, "webhook:whk_1")
	if s1 == s2 {
		t.Error("two seals of the same value are equal: nonce reused")
	}
	if strings.Contains(s1, "svc_whsec") {
		t.Error("plaintext visible in sealed value")
	}
	got, err := b.Open(s1, "webhook:whk_1")
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}
}

func TestOpenRejects(t *testing.T) {
	b := box(t, 1)
	sealed, _ := b.Seal([]byte("x"), "ctx")
	// Flip one bit of the decoded ciphertext (not of its base64 text, which could merely make
	// the value malformed), so that the case reaches the authentication check.
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(sealed, "v1:"))
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 1
	flipped := "v1:" + base64.RawStdEncoding.EncodeToString(raw)
	tests := []struct {
		name, sealed, context string
		box                   *Box
	}{
		{"other context", sealed, "ctx2", b},
		{"other key", sealed, "ctx", box(t, 2)},
		{"tampered", flipped, "ctx", b},
		{"no version", strings.TrimPrefix(sealed, "v1:"), "ctx", b},
		{"not base64", "v1:!!!", "ctx", b},
		{"too short", "v1:AAAA", "ctx", b},
		{"empty", "", "ctx", b},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.box.Open(tt.sealed, tt.context); !errors.Is(err, ErrOpen) {
				t.Fatalf("Open err = %v, want ErrOpen", err)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	if _, err := NewBox(make([]byte, 16)); err == nil {
		t.Error("16-byte key accepted")
	}
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewBoxBase64(k); err != nil {
		t.Errorf("NewBoxBase64(NewKey()): %v", err)
	}
	if _, err := NewBoxBase64("not base64"); err == nil {
		t.Error("bad base64 accepted")
	}
}

func FuzzOpen(f *testing.F) {
	b, _ := NewBox(bytes.Repeat([]byte{1}, KeySize))
	s, _ := b.Seal([]byte("secret"), "c")
	f.Add(s, "c")
	f.Add("v1:", "")
	f.Fuzz(func(t *testing.T, sealed, context string) {
		_, _ = b.Open(sealed, context)
	})
}

// TestFromConfig: the platform box opens what a box of the same key sealed, and an empty
// key is ErrNoKey, a malformed one an error.
func TestFromConfig(t *testing.T) {
	key, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	box, err := FromConfig(key)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewBoxBase64(key)
	sealed, err := other.Seal([]byte("s3cret"), "ctx")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := box.Open(sealed, "ctx"); err != nil || string(got) != "s3cret" {
		t.Errorf("Open = %q, %v", got, err)
	}
	if _, err := FromConfig(""); !errors.Is(err, ErrNoKey) {
		t.Errorf("FromConfig(\"\") = %v, want ErrNoKey", err)
	}
	if _, err := FromConfig("not base64!"); err == nil || errors.Is(err, ErrNoKey) {
		t.Errorf("FromConfig(malformed) = %v", err)
	}
}
