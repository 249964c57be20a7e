package pgwire

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
)

// startup runs the handshake: encryption negotiation, the StartupMessage,
// authentication, opening the session, the parameter reports, the cancel
// key and the first ReadyForQuery. It returns false when the connection is
// finished: a CancelRequest, or a client that was turned away.
//
// The whole handshake must finish within Config.AuthTimeout, like
// PostgreSQL's authentication_timeout, so an idle half-open connection
// cannot hold a slot forever.
func (c *conn) startup(ctx context.Context) bool {
	c.nc.SetDeadline(time.Now().Add(c.srv.cfg.AuthTimeout))
	params, err := c.negotiate(ctx)
	if err == nil && params != nil {
		err = c.open(ctx, params)
	}
	if err != nil {
		c.startupFailed(ctx, err)
		return false
	}
	if params == nil {
		return false
	}
	c.nc.SetDeadline(time.Time{})
	if ctx.Err() != nil { // shutdown raced with clearing the deadline
		c.sendFatal(context.Cause(ctx))
		return false
	}
	for _, p := range c.sess.ParameterStatuses() {
		c.w.send(&pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
	}
	c.w.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	return !c.ready()
}

// negotiate reads the packets that open a connection until the
// StartupMessage and returns its parameters; nil parameters and no error
// mean the connection carried a CancelRequest and is done.
func (c *conn) negotiate(ctx context.Context) (map[string]string, error) {
	encrypted := false
	for {
		body, err := c.r.startupPacket()
		if err != nil {
			return nil, err
		}
		code := binary.BigEndian.Uint32(body)
		switch {
		case code == sslRequestCode && !encrypted:
			if c.srv.cfg.TLS == nil {
				if err := c.w.raw('N'); err != nil {
					return nil, err
				}
				continue
			}
			if err := c.startTLS(ctx); err != nil {
				return nil, err
			}
			encrypted = true
		case code == gssEncRequestCode && !encrypted:
			if err := c.w.raw('N'); err != nil {
				return nil, err
			}
		case code == cancelRequestCode:
			c.srv.cancelRequest(body)
			return nil, nil
		default:
			return c.startupMessage(code, body[4:])
		}
	}
}

// startTLS accepts an SSLRequest and switches the connection to TLS.
func (c *conn) startTLS(ctx context.Context) error {
	if c.r.buffered() {
		// Bytes sent before the handshake would be taken as if they had
		// arrived encrypted.
		return fatal(pgerr.ProtocolViolation, "received unencrypted data after SSL request")
	}
	if err := c.w.raw('S'); err != nil {
		return err
	}
	tc := tls.Server(c.nc, c.srv.cfg.TLS)
	if err := tc.HandshakeContext(ctx); err != nil {
		return err
	}
	c.r = newMsgReader(tc, c.srv.cfg.MaxMessageSize)
	c.w.setOut(tc)
	c.tls = true
	return nil
}

// startupMessage checks the protocol version and decodes the parameters.
// A client asking for a newer minor version or for protocol options
// (_pq_.*) is told that the server speaks 3.0 without them, as PostgreSQL
// does, and goes on with 3.0.
func (c *conn) startupMessage(version uint32, body []byte) (map[string]string, error) {
	major, minor := version>>16, version&0xffff
	if major != 3 {
		return nil, fatal(pgerr.FeatureNotSupported, "unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", major, minor)
	}
	params, err := parseStartupParams(body)
	if err != nil {
		return nil, err
	}
	var unknown []string
	for k := range params {
		if strings.HasPrefix(k, "_pq_.") {
			unknown = append(unknown, k)
			delete(params, k)
		}
	}
	if minor > 0 || len(unknown) > 0 {
		c.w.send(&pgproto3.NegotiateProtocolVersion{UnrecognizedOptions: unknown})
	}
	return params, nil
}

// parseStartupParams decodes the name/value pairs of a StartupMessage.
func parseStartupParams(b []byte) (map[string]string, error) {
	params := make(map[string]string)
	for {
		i := bytes.IndexByte(b, 0)
		switch {
		case i < 0:
			return nil, fatal(pgerr.ProtocolViolation, "invalid startup packet layout: expected terminator as last byte")
		case i == 0:
			if len(b) != 1 {
				return nil, fatal(pgerr.ProtocolViolation, "invalid startup packet layout: expected terminator as last byte")
			}
			return params, nil
		}
		name := string(b[:i])
		b = b[i+1:]
		j := bytes.IndexByte(b, 0)
		if j < 0 {
			return nil, fatal(pgerr.ProtocolViolation, "invalid startup packet layout: expected terminator as last byte")
		}
		params[name] = string(b[:j])
		b = b[j+1:]
	}
}

// open admits the client, authenticates it and opens its session, in
// PostgreSQL's order: the connection limit, then whether the client may
// connect this way at all (TLS), then its password, then its role.
func (c *conn) open(ctx context.Context, params map[string]string) error {
	user := params["user"]
	if user == "" {
		return fatal(pgerr.InvalidAuthorization, "no PostgreSQL user name specified in startup packet")
	}
	database := params["database"]
	if database == "" {
		database = user
	}
	if !c.srv.admit(c) {
		return fatal(pgerr.TooManyConnections, "sorry, too many clients already")
	}
	auth := &c.srv.cfg.Auth
	local := auth.isLocal(c.nc.RemoteAddr())
	if !local && !c.tls && c.srv.cfg.TLS != nil && !auth.RemotePlaintext {
		e := fatal(pgerr.InvalidAuthorization, "SSL is required for connections from host \"%s\"", remoteHost(c.nc.RemoteAddr()))
		e.Hint = "Connect with SSL, for example with sslmode=require."
		return e
	}
	role, found, err := c.authenticate(ctx, user, local)
	if err != nil {
		return err
	}
	if err := c.w.send(&pgproto3.AuthenticationOk{}); err != nil {
		return err
	}
	if err := c.checkRole(user, role, found); err != nil {
		return err
	}
	c.srv.register(c)
	c.log = c.log.With("pid", c.pid, "user", user)
	sess, err := c.srv.cfg.Engine.Connect(ctx, Startup{
		User:       user,
		Database:   database,
		Params:     params,
		ProcessID:  c.pid,
		RemoteAddr: c.nc.RemoteAddr(),
		Notifier:   c.w,
		Portals:    c,
	})
	if err != nil {
		return err
	}
	c.sess = sess
	c.log.Debug("session started", "database", database)
	return nil
}

// remoteHost is the client's address without its port.
func remoteHost(addr net.Addr) string {
	if host, _, err := net.SplitHostPort(addr.String()); err == nil {
		return host
	}
	return addr.String()
}

// startupFailed reports a failed handshake: protocol and engine errors as
// FATAL, a client that went away or timed out quietly.
func (c *conn) startupFailed(ctx context.Context, err error) {
	switch {
	case ctx.Err() != nil:
		c.sendFatal(context.Cause(ctx))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
	case pgerr.As(err) != nil:
		c.sendFatal(err)
	default:
		c.log.Debug("startup failed", "err", err)
	}
}
