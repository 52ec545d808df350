package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
)

// BootstrapInput says what `svc bootstrap` (and `svc dev` on an empty data directory) creates.
type BootstrapInput struct {
	// OrgID adds to an existing organisation; "" creates a new one named OrgName.
	OrgID   string
	OrgName string
	// Email creates a user (role Role, default admin) and binds the key to it (actAsUserId).
	// "" creates no user: only valid for a service principal key, or with DefaultUser.
	Email string
	// DefaultUser, for a new organisation without Email, creates its user as DefaultUserEmail of
	// the organisation's id: an address no other organisation's default user can have.
	DefaultUser bool
	UserName    string
	Role        string
	// Password, if set, lets the user log in to the dashboard.
	Password string
	// ServiceSlug makes the key a service principal key (callerServiceSlug, SPEC 5.6).
	ServiceSlug string
	// Environment is the key's environment: sandbox or live.
	Environment string
	// Capabilities are a new organisation's products; nil means every product ("*").
	Capabilities []string
	// KeyName labels the key; "" means "bootstrap".
	KeyName string
	// Scopes of the key; nil means the role's scopes (for a service key: required).
	Scopes    []string
	ExpiresAt *time.Time
	Now       time.Time
}

// BootstrapResult is what was created. Secret is the key's value, shown once.
type BootstrapResult struct {
	Org    Organization
	User   *User
	Key    APIKey
	Secret string
}

// Bootstrap creates, in one transaction, an organisation (or uses an existing one), a user and a
// key bound to that user, or a service principal key. It validates its input and names the bad field.
func (s *Orgs) Bootstrap(ctx context.Context, in BootstrapInput) (*BootstrapResult, error) {
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	now := in.Now.UTC()
	if in.Environment != auth.Sandbox && in.Environment != auth.Live {
		return nil, fmt.Errorf("bootstrap: environment must be sandbox or live, got %q", in.Environment)
	}
	if in.Role == "" {
		in.Role = auth.RoleAdmin
	}
	if !auth.ValidRole(in.Role) {
		return nil, fmt.Errorf("bootstrap: role must be one of %v, got %q", auth.Roles(), in.Role)
	}
	if in.DefaultUser && (in.Email != "" || in.ServiceSlug != "" || in.OrgID != "") {
		return nil, errors.New("bootstrap: the default user is only for a new organisation without an email or service slug")
	}
	if in.Email == "" && in.ServiceSlug == "" && !in.DefaultUser {
		return nil, errors.New("bootstrap: a user email or a service slug is required")
	}
	if in.Email != "" && !ValidEmail(in.Email) {
		return nil, fmt.Errorf("bootstrap: %q is not an email address", in.Email)
	}
	if in.ServiceSlug != "" && !ValidSlug(in.ServiceSlug) {
		return nil, fmt.Errorf("bootstrap: service slug %q must be lowercase letters, digits and dashes", in.ServiceSlug)
	}
	caps := auth.ParseCapabilities(auth.AllCapabilities)
	if in.Capabilities != nil {
		if in.OrgID != "" {
			return nil, errors.New("bootstrap: capabilities are set when an organisation is created (change them later with PUT /api/organization/capabilities)")
		}
		c, err := auth.NewCapabilities(in.Capabilities)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: capabilities: %w", err)
		}
		caps = c
	}
	scopes := append([]string(nil), in.Scopes...)
	if in.Scopes == nil {
		if in.ServiceSlug != "" {
			return nil, errors.New("bootstrap: a service key needs explicit scopes")
		}
		scopes = auth.RoleScopes(in.Role)
	}
	if len(scopes) == 0 {
		return nil, errors.New("bootstrap: a key needs at least one scope")
	}
	for i, sc := range scopes {
		if !auth.ValidScope(sc) {
			return nil, fmt.Errorf("bootstrap: invalid scope %q", sc)
		}
		scopes[i] = auth.NormalizeScope(sc)
	}
	var hash string
	if in.Password != "" {
		h, err := auth.HashPassword(in.Password)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
		hash = h
	}
	name := in.KeyName
	if name == "" {
		name = "bootstrap"
	}
	out := &BootstrapResult{}
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		if in.OrgID != "" {
			if err := tx.Where("id = ?", in.OrgID).Take(&out.Org).Error; err != nil {
				if errors.Is(err, gorm.ErrRecordNotFound) {
					return fmt.Errorf("bootstrap: organisation %s not found", in.OrgID)
				}
				return err
			}
		} else {
			if in.OrgName == "" {
				return errors.New("bootstrap: an organisation name or id is required")
			}
			out.Org = Organization{ID: ids.NewAt(ids.Organization, now), Name: in.OrgName, Capabilities: caps.String(), CreatedAt: now}
			if err := tx.Create(&out.Org).Error; err != nil {
				return err
			}
		}
		userID := ""
		if in.DefaultUser {
			in.Email = DefaultUserEmail(out.Org.ID)
			if in.UserName == "" {
				in.UserName = in.Email
			}
		}
		if in.Email != "" {
			u := &User{ID: ids.NewAt(ids.User, now), OrgID: out.Org.ID, Email: in.Email, Name: in.UserName,
				Role: in.Role, PasswordHash: hash, CreatedAt: now, UpdatedAt: now}
			if err := createUser(tx, u); err != nil {
				if errors.Is(err, ErrEmailTaken) {
					return fmt.Errorf("bootstrap: a user with email %s already exists", u.Email)
				}
				return err
			}
			out.User, userID = u, u.ID
		}
		k, secret := newAPIKey(NewAPIKey{OrgID: out.Org.ID, Name: name, Environment: in.Environment, Scopes: scopes,
			ActAsUserID: userID, CallerServiceSlug: in.ServiceSlug, ExpiresAt: in.ExpiresAt, Now: now})
		if err := tx.Create(k).Error; err != nil {
			return err
		}
		out.Key, out.Secret = *k, secret
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DefaultUserEmail is the address of the user `svc bootstrap --org` creates when given no --user:
// unique per organisation, because emails are unique across organisations (login finds the
// organisation by the email).
func DefaultUserEmail(orgID string) string { return "admin+" + orgID + "@svc.local" }

// ValidEmail is a deliberately simple check: one @, something on both sides, a dot in the domain,
// no blanks, at most 320 characters.
func ValidEmail(email string) bool {
	email = NormalizeEmail(email)
	if len(email) < 3 || len(email) > 320 {
		return false
	}
	at := -1
	for i, r := range email {
		switch {
		case r == '@':
			if at >= 0 {
				return false
			}
			at = i
		case r <= ' ' || r == 0x7f:
			return false
		}
	}
	if at <= 0 || at == len(email)-1 {
		return false
	}
	domain := email[at+1:]
	for i := 0; i < len(domain); i++ {
		if domain[i] == '.' && i > 0 && i < len(domain)-1 {
			return true
		}
	}
	return false
}

// ValidSlug reports whether s is 1 to 100 lowercase letters, digits and inner dashes.
func ValidSlug(s string) bool {
	if s == "" || len(s) > 100 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
