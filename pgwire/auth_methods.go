package pgwire

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/scram"
)

// scramExchange runs SCRAM-SHA-256 (or -PLUS, which binds the exchange to
// the TLS connection) against v and reports whether the client proved
// that it knows the password. A doomed exchange runs to its end and fails.
//
//	server: AuthenticationSASL [SCRAM-SHA-256-PLUS,] SCRAM-SHA-256
//	client: SASLInitialResponse mechanism, client-first message
//	server: AuthenticationSASLContinue server-first message
//	client: SASLResponse client-final message
//	server: AuthenticationSASLFinal server signature (when the proof is right)
func (c *conn) scramExchange(v scram.Verifier, doomed bool) (bool, error) {
	var cbind []byte
	if c.tls {
		cbind = c.srv.cbind
	}
	var init saslInitialResponse
	if err := c.authRequest(&pgproto3.AuthenticationSASL{AuthMechanisms: scram.Mechanisms(cbind)}, &init, "SASL response"); err != nil {
		return false, err
	}
	s, err := scram.NewServer(init.mechanism, v, doomed, cbind)
	if err != nil {
		return false, err
	}
	first := init.data
	if init.none {
		// No initial response: PostgreSQL asks for it with an empty
		// challenge.
		var resp pgproto3.SASLResponse
		if err := c.authRequest(&pgproto3.AuthenticationSASLContinue{}, &resp, "SASL response"); err != nil {
			return false, err
		}
		first = resp.Data
	}
	serverFirst, err := s.First(first)
	if err != nil {
		return false, err
	}
	var resp pgproto3.SASLResponse
	if err := c.authRequest(&pgproto3.AuthenticationSASLContinue{Data: serverFirst}, &resp, "SASL response"); err != nil {
		return false, err
	}
	final, ok, err := s.Final(resp.Data)
	if err != nil || !ok {
		return false, err
	}
	return true, c.authSend(&pgproto3.AuthenticationSASLFinal{Data: final})
}

// cleartextPassword asks for the password itself and checks it against v.
// Checking costs a PBKDF2 derivation, milliseconds of CPU, so at most
// half the cores do it at once (Server.kdf): a flood of cleartext guesses
// queues for those instead of taking the CPU from every session.
func (c *conn) cleartextPassword(ctx context.Context, v scram.Verifier, doomed bool) (bool, error) {
	var pw pgproto3.PasswordMessage
	if err := c.authRequest(&pgproto3.AuthenticationCleartextPassword{}, &pw, "password response"); err != nil {
		return false, err
	}
	if pw.Password == "" {
		// PostgreSQL logs "empty password returned by client" and closes
		// the connection without an answer.
		return false, io.EOF
	}
	select {
	case c.srv.kdf <- struct{}{}:
	case <-ctx.Done():
		return false, context.Cause(ctx)
	}
	ok := v.Check(pw.Password)
	<-c.srv.kdf
	return ok && !doomed, nil
}

// saslInitialResponse is the answer to AuthenticationSASL, decoded as
// PostgreSQL reads it: the mechanism, then the length of the initial
// response, -1 when the client sends none. (pgproto3's decoder skips the
// length.)
type saslInitialResponse struct {
	mechanism string
	data      []byte
	none      bool
}

var errSASLInitial = errors.New("invalid SASLInitialResponse")

func (*saslInitialResponse) Frontend() {}

func (m *saslInitialResponse) Decode(b []byte) error {
	*m = saslInitialResponse{}
	i := bytes.IndexByte(b, 0)
	if i < 0 || len(b) < i+5 {
		return errSASLInitial
	}
	m.mechanism = string(b[:i])
	n := int32(binary.BigEndian.Uint32(b[i+1:]))
	b = b[i+5:]
	switch {
	case n == -1 && len(b) == 0:
		m.none = true
	case n < 0 || int(n) != len(b):
		return errSASLInitial
	default:
		m.data = bytes.Clone(b)
	}
	return nil
}

func (m *saslInitialResponse) Encode(dst []byte) ([]byte, error) {
	return (&pgproto3.SASLInitialResponse{AuthMechanism: m.mechanism, Data: m.data}).Encode(dst)
}

// endPoint returns the tls-server-end-point data of the server's
// certificate when there is one certificate for every client; with
// several, or one chosen per client, the server cannot tell which one a
// connection got and offers no channel binding.
func endPoint(cfg *tls.Config) []byte {
	if cfg == nil || len(cfg.Certificates) != 1 || cfg.GetCertificate != nil || cfg.GetConfigForClient != nil {
		return nil
	}
	cert := cfg.Certificates[0]
	leaf := cert.Leaf
	if leaf == nil {
		if len(cert.Certificate) == 0 {
			return nil
		}
		var err error
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil
		}
	}
	return scram.EndPoint(leaf)
}
