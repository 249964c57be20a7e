package pgwire

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// openingRoles are roles not readable until opened is closed: LoginRole
// waits for it, as the SQL layer's do while the store opens.
type openingRoles struct {
	roles   StaticRoles
	opened  chan struct{}
	lookups atomic.Int64
}

func (r *openingRoles) RolesReady() bool {
	select {
	case <-r.opened:
		return true
	default:
		return false
	}
}

func (r *openingRoles) LoginRole(ctx context.Context, name string) (LoginRole, bool, error) {
	r.lookups.Add(1)
	select {
	case <-r.opened:
	case <-ctx.Done():
		return LoginRole{}, false, ctx.Err()
	}
	return r.roles.LoginRole(ctx, name)
}

// TestAuthWhileRolesOpen connects while the roles cannot be read yet: a
// client trusted without a password is let in at once without a lookup,
// one that must give a password waits in the handshake until the roles
// open, and then authenticates against them, with the mock nonce of
// MockNonceOf.
func TestAuthWhileRolesOpen(t *testing.T) {
	roles := &openingRoles{roles: testRoles(), opened: make(chan struct{})}
	var nonceAsked atomic.Bool
	auth := AuthConfig{Remote: AuthSCRAM, LocalNets: remoteNets, FailureDelay: -1,
		MockNonceOf: func() []byte { nonceAsked.Store(true); return []byte("nonce") }}
	ts := startServer(t, Config{Auth: auth, Roles: roles})

	trusted := startServer(t, Config{Roles: roles})
	conn, err := connectPgxErr(t, trusted.addr, "user=anyone")
	if err != nil {
		t.Fatalf("a trusted client while the roles open: %v", err)
	}
	conn.Close(context.Background())
	if n := roles.lookups.Load(); n != 0 {
		t.Errorf("a trusted client looked its role up %d times while the roles open", n)
	}

	done := make(chan error, 2)
	for _, user := range []string{"alice", "mallory"} {
		cfg := pgxConfig(t, ts.addr, "user="+user, "password=s3cret")
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err == nil {
				conn.Close(context.Background())
			}
			done <- err
		}()
	}
	select {
	case err := <-done:
		t.Fatalf("a password client finished its handshake before the roles opened: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(roles.opened)
	var ok, refused int
	for range 2 {
		switch err := <-done; {
		case err == nil:
			ok++
		case pgCode(err) == "28P01":
			refused++
		default:
			t.Errorf("handshake once the roles opened: %v", err)
		}
	}
	if ok != 1 || refused != 1 {
		t.Errorf("alice and mallory once the roles opened: %d in, %d refused; want 1 and 1", ok, refused)
	}
	if !nonceAsked.Load() {
		t.Error("the unknown role's mock salt did not come from MockNonceOf")
	}
}
