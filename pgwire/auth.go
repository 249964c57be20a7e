package pgwire

import (
	"context"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/scram"
	"github.com/streamdb/streamdb/pgerr"
)

// AuthMethod is how a client proves who it is, as the method of a
// pg_hba.conf line.
type AuthMethod uint8

const (
	// AuthTrust lets the client in as the role it names.
	AuthTrust AuthMethod = iota
	// AuthSCRAM asks for SCRAM-SHA-256, with channel binding offered over
	// TLS: the password never crosses the network.
	AuthSCRAM
	// AuthPassword asks for the password in cleartext, for clients
	// without SCRAM, and checks it against the role's verifier. It is used
	// on TLS connections only; a connection without TLS gets SCRAM.
	AuthPassword
)

// AuthConfig is the server's authentication policy. Its zero value trusts
// everyone, as PostgreSQL's trust method.
type AuthConfig struct {
	// Local is the method for clients connecting from an address in
	// LocalNets, Remote for all others.
	Local, Remote AuthMethod
	// LocalNets are the client addresses that count as local; nil means
	// the loopback networks 127.0.0.0/8 and ::1.
	LocalNets []netip.Prefix
	// RemotePlaintext admits clients from non-local addresses without
	// TLS when the server has TLS. By default they are refused, so that a
	// server given a certificate never carries passwords or data in the
	// clear beyond the host.
	RemotePlaintext bool
	// FailureDelay is how long a failed password waits before it is
	// answered, which slows guessing; the wait holds the connection's slot
	// (see Config.MaxConnections) but nothing any other session needs.
	// Zero means one second; negative means no delay.
	FailureDelay time.Duration
	// MockNonce is a secret from which the salt shown for a role that does
	// not exist is derived (see scram.Mock). It must stay the same across
	// restarts, or a changing salt would tell a guesser that the role does
	// not exist; nil draws one per server.
	MockNonce []byte
	// MockNonceOf, when set, supplies MockNonce instead, asked after
	// Roles.LoginRole has answered: for a server that listens before the
	// store holding the secret has opened (see StartingRoles).
	MockNonceOf func() []byte
}

// Roles looks up what authentication needs to know about a role. The SQL
// layer implements it from its catalog; StaticRoles serves a fixed set.
// When Config.Roles is nil no role is looked up: every user name is
// accepted under trust and every password fails.
type Roles interface {
	// LoginRole returns the role named name; ok is false when there is
	// none. It is called once per connection, before authentication.
	LoginRole(ctx context.Context, name string) (role LoginRole, ok bool, err error)
}

// LoginRole is what authentication reads of a role, the pg_authid columns
// of the same meaning.
type LoginRole struct {
	// Password is rolpassword: a SCRAM-SHA-256 verifier in PostgreSQL's
	// format, SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>,
	// or empty when the role has no password, which no password matches.
	Password string
	// CanLogin is rolcanlogin: without it the role may not connect even
	// with the right password.
	CanLogin bool
	// ValidUntil is rolvaliduntil, after which the password no longer
	// works; zero means forever.
	ValidUntil time.Time
}

// StartingRoles is Roles that may not be readable yet, because the
// store holding them is still opening: LoginRole then waits. A client
// let in without a password (AuthTrust) does not wait for it while
// RolesReady is false: it completes its startup at once, and the engine
// checks its role when it can (Engine.Connect, or the session's first
// statement that needs the engine).
type StartingRoles interface {
	Roles
	RolesReady() bool
}

// StaticRoles is a fixed set of roles by name: the bootstrap superuser
// before the catalog holds roles, and tests.
type StaticRoles map[string]LoginRole

// LoginRole implements Roles.
func (r StaticRoles) LoginRole(ctx context.Context, name string) (LoginRole, bool, error) {
	role, ok := r[name]
	return role, ok, nil
}

// maxAuthMessage bounds the client's answers during authentication, as
// PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH does: an unauthenticated client
// cannot make the server buffer a large message.
const maxAuthMessage = 65535

// authenticate runs the method that applies to the client and returns the
// role it named (found is false when Roles has no such role). A wrong
// password, or none for a role that has none, is answered after
// FailureDelay with 28P01, whatever the reason, so that a client cannot
// tell an unknown role from a wrong password.
func (c *conn) authenticate(ctx context.Context, user string, local bool) (role LoginRole, found bool, err error) {
	cfg := &c.srv.cfg
	method := cfg.Auth.Remote
	if local {
		method = cfg.Auth.Local
	}
	if method == AuthPassword && !c.tls {
		method = AuthSCRAM
	}
	if sr, ok := cfg.Roles.(StartingRoles); ok && method == AuthTrust && !sr.RolesReady() {
		return LoginRole{CanLogin: true}, true, nil
	}
	if cfg.Roles != nil {
		if role, found, err = cfg.Roles.LoginRole(ctx, user); err != nil {
			return role, found, err
		}
	}
	if method == AuthTrust {
		return role, found, nil
	}

	v, why := c.srv.verifier(user, role, found)
	usable := why == ""
	c.r.max = maxAuthMessage
	defer func() { c.r.max = cfg.MaxMessageSize }()
	var ok bool
	if method == AuthSCRAM {
		ok, err = c.scramExchange(v, !usable)
	} else {
		ok, err = c.cleartextPassword(ctx, v, !usable)
	}
	if err != nil {
		return role, found, err
	}
	if !ok {
		if why == "" {
			why = "password does not match"
		}
		// The reason is for the server's log, as in PostgreSQL; the
		// client learns only that it failed.
		c.log.Info("password authentication failed", "user", user, "reason", why)
		c.srv.failureDelay(ctx)
		return role, found, fatal(pgerr.InvalidPassword, "password authentication failed for user \"%s\"", user)
	}
	return role, found, nil
}

// verifier returns the verifier the exchange for user runs on. When it
// is not the role's own, why says so and the verifier is a mock: the
// exchange runs to its end and fails.
func (s *Server) verifier(user string, role LoginRole, found bool) (v scram.Verifier, why string) {
	switch {
	case !found:
		why = "role does not exist"
	case role.Password == "":
		why = "role has no password"
	case !role.ValidUntil.IsZero() && !time.Now().Before(role.ValidUntil):
		why = "password has expired"
	default:
		v, err := scram.Parse(role.Password)
		if err == nil {
			return v, ""
		}
		why = "password is not a SCRAM-SHA-256 verifier"
	}
	nonce := s.mockNonce
	if f := s.cfg.Auth.MockNonceOf; f != nil {
		if n := f(); n != nil {
			nonce = n
		}
	}
	return scram.Mock(user, nonce), why
}

// checkRole refuses a role that does not exist or may not log in. As in
// PostgreSQL this comes after AuthenticationOk: the client has proved who
// it is, and the role's state is no secret from it.
func (c *conn) checkRole(user string, role LoginRole, found bool) error {
	switch {
	case c.srv.cfg.Roles == nil:
		return nil
	case !found:
		return fatal(pgerr.InvalidAuthorization, "role \"%s\" does not exist", user)
	case !role.CanLogin:
		return fatal(pgerr.InvalidAuthorization, "role \"%s\" is not permitted to log in", user)
	}
	return nil
}

// failureDelay waits FailureDelay, or until the server shuts down.
func (s *Server) failureDelay(ctx context.Context) {
	d := s.cfg.Auth.FailureDelay
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// authRequest sends an authentication request and reads the client's
// answer, a 'p' message, into resp. Anything else is refused by its type
// byte, as PostgreSQL does; what names the expected answer in that error
// ("SASL response", "password response"). A client that just goes away
// ends the connection quietly.
func (c *conn) authRequest(req pgproto3.BackendMessage, resp pgproto3.FrontendMessage, what string) error {
	if err := c.authSend(req); err != nil {
		return err
	}
	t, err := c.r.peekType()
	if err != nil {
		return err
	}
	if t != 'p' {
		return fatal(pgerr.ProtocolViolation, "expected %s, got message type %d", what, t)
	}
	_, decodeErr, err := c.r.next(resp)
	switch {
	case err != nil:
		return err
	case decodeErr != nil:
		return fatal(pgerr.ProtocolViolation, "invalid message format")
	}
	return nil
}

// authSend sends a message that expects no answer, at once.
func (c *conn) authSend(msg pgproto3.BackendMessage) error {
	if err := c.w.send(msg); err != nil {
		return err
	}
	return c.w.flush()
}
