package pgwire

import (
	"context"
	"crypto/subtle"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
)

// Authenticator decides whether a client may connect. It runs after the
// StartupMessage and before the session opens, and drives whatever
// exchange its method needs through the AuthExchange; returning nil accepts
// the client, and pgwire then sends AuthenticationOk. A nil Config.Auth
// trusts every client, like PostgreSQL's trust method.
//
// Cleartext passwords (PasswordAuth) are provided; SCRAM-SHA-256 fits the
// same shape: AuthenticationSASL answered by a SASLInitialResponse, then
// AuthenticationSASLContinue answered by a SASLResponse, then
// AuthenticationSASLFinal sent with Send.
type Authenticator interface {
	Authenticate(ctx context.Context, ex *AuthExchange, user, database string) error
}

// AuthExchange is the authentication conversation with one client.
type AuthExchange struct {
	c *conn
}

// Request sends an authentication request and decodes the client's answer
// into resp: a PasswordMessage, SASLInitialResponse or SASLResponse, as the
// request implies.
func (ex *AuthExchange) Request(req pgproto3.BackendMessage, resp pgproto3.FrontendMessage) error {
	if err := ex.Send(req); err != nil {
		return err
	}
	msg, decodeErr, err := ex.c.r.next(resp)
	switch {
	case err != nil:
		return err
	case msg != resp:
		return fatal(pgerr.ProtocolViolation, "expected password response")
	case decodeErr != nil:
		return fatal(pgerr.ProtocolViolation, "invalid password packet")
	}
	return nil
}

// Send sends a message that expects no answer.
func (ex *AuthExchange) Send(msg pgproto3.BackendMessage) error {
	if err := ex.c.w.send(msg); err != nil {
		return err
	}
	return ex.c.w.flush()
}

// PasswordAuth returns an Authenticator that asks for a cleartext password
// and accepts the client when check approves it. The password crosses the
// network as is, so it belongs on TLS connections or trusted networks.
func PasswordAuth(check func(user, password string) bool) Authenticator {
	return passwordAuth{check}
}

type passwordAuth struct {
	check func(user, password string) bool
}

func (a passwordAuth) Authenticate(ctx context.Context, ex *AuthExchange, user, database string) error {
	var pw pgproto3.PasswordMessage
	if err := ex.Request(&pgproto3.AuthenticationCleartextPassword{}, &pw); err != nil {
		return err
	}
	if !a.check(user, pw.Password) {
		return fatal(pgerr.InvalidPassword, "password authentication failed for user \"%s\"", user)
	}
	return nil
}

// StaticPassword returns a check for PasswordAuth that accepts one user
// with one password, comparing in constant time.
func StaticPassword(user, password string) func(string, string) bool {
	return func(u, p string) bool {
		okUser := subtle.ConstantTimeCompare([]byte(u), []byte(user))
		okPass := subtle.ConstantTimeCompare([]byte(p), []byte(password))
		return okUser&okPass == 1
	}
}
