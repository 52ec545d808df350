package accounts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
)

// userView is a user as the API shows it; the password hash never leaves the store.
type userView struct {
	ID          string `json:"id"`
	Email       string `json:"email"`
	Name        string `json:"name"`
	Role        string `json:"role"`
	Disabled    bool   `json:"disabled"`
	HasPassword bool   `json:"hasPassword"`
	CreatedAt   string `json:"createdAt"`
	UpdatedAt   string `json:"updatedAt"`
}

func newUserView(u *store.User) userView {
	return userView{ID: u.ID, Email: u.Email, Name: u.Name, Role: u.Role, Disabled: u.Disabled,
		HasPassword: u.PasswordHash != "", CreatedAt: api.Timestamp(u.CreatedAt), UpdatedAt: api.Timestamp(u.UpdatedAt)}
}

type createUserRequest struct {
	Email    string `json:"email"`
	Name     string `json:"name"`
	Role     string `json:"role"`
	Password string `json:"password"`
	// ExternalID is handled by the idempotency middleware.
	ExternalID string `json:"externalId"`
}

type updateUserRequest struct {
	Name     *string `json:"name"`
	Role     *string `json:"role"`
	Password *string `json:"password"`
	Disabled *bool   `json:"disabled"`
}

// validateUserFields checks the fields users share between creation and update.
func validateUserFields(fe api.FieldErrors, name, role, password *string) {
	if name != nil && len(*name) > 200 {
		fe.Add("name", "must be at most 200 characters")
	}
	if role != nil && !auth.ValidRole(*role) {
		fe.Add("role", "must be one of "+strings.Join(auth.Roles(), ", "))
	}
	if password != nil && (len(*password) < auth.MinPasswordLen || len(*password) > auth.MaxPasswordLen) {
		fe.Add("password", fmt.Sprintf("must be %d to %d bytes", auth.MinPasswordLen, auth.MaxPasswordLen))
	}
}

// hashPassword hashes a password that validateUserFields accepted; "" stays "" (no password).
func hashPassword(c *gin.Context, password string) (string, bool) {
	if password == "" {
		return "", true
	}
	h, err := auth.HashPassword(password)
	if err != nil {
		api.Internal(c, err)
		return "", false
	}
	return h, true
}

// createUser adds a person to the caller's organisation.
func (h *Handler) createUser(c *gin.Context) {
	var req createUserRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if !store.ValidEmail(req.Email) {
		fe.Add("email", "must be an email address")
	}
	var pw *string
	if req.Password != "" {
		pw = &req.Password
	}
	validateUserFields(fe, &req.Name, &req.Role, pw)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	hash, ok := hashPassword(c, req.Password)
	if !ok {
		return
	}
	now := h.Now().UTC()
	u := &store.User{ID: ids.NewAt(ids.User, now), OrgID: api.PrincipalOf(c).OrgID, Email: req.Email,
		Name: strings.TrimSpace(req.Name), Role: req.Role, PasswordHash: hash, CreatedAt: now, UpdatedAt: now}
	if err := h.Store.Users.Create(c.Request.Context(), u); err != nil {
		if errors.Is(err, store.ErrEmailTaken) {
			api.ValidationFailed(c, api.FieldErrors{"email": {"is already in use"}})
			return
		}
		api.Internal(c, err)
		return
	}
	api.Created(c, newUserView(u))
}

// listUsers pages through the organisation's users; q matches email and name.
func (h *Handler) listUsers(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Filters: []string{api.FilterQ}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Users.List(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter)
	if !api.Loaded(c, err) {
		return
	}
	api.ListRows(c, rows, total, q, newUserView, nil)
}

// getUser answers one user of the organisation.
func (h *Handler) getUser(c *gin.Context) {
	u, err := h.Store.Users.Get(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	api.OK(c, newUserView(u))
}

// updateUser changes a user's name, role, password or disabled flag. A new password or disabling
// ends the user's sessions, and a disabled user's keys are refused from the next request.
func (h *Handler) updateUser(c *gin.Context) {
	var req updateUserRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	validateUserFields(fe, req.Name, req.Role, req.Password)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	ch := store.UserChanges{Role: req.Role, Disabled: req.Disabled, Now: h.Now()}
	if req.Name != nil {
		name := strings.TrimSpace(*req.Name)
		ch.Name = &name
	}
	if req.Password != nil {
		hash, ok := hashPassword(c, *req.Password)
		if !ok {
			return
		}
		ch.PasswordHash = &hash
	}
	u, err := h.Store.Users.Update(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c), ch)
	if !api.Loaded(c, err) {
		return
	}
	api.ForgetKeys(c)
	api.OK(c, newUserView(u))
}
