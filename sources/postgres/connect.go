package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/pgerr"
)

// connectTimeout bounds establishing one connection, and opTimeout the
// setup steps of a session that should take milliseconds (identifying
// the system, reading the catalog, starting replication): a connection
// that stops answering without closing fails them instead of hanging.
// Steps that may rightly take long (creating a slot waits for running
// transactions; a snapshot reads whole tables) rely on TCP keepalives,
// which notice a peer that no longer acknowledges within a minute.
const (
	connectTimeout = 15 * time.Second
	opTimeout      = time.Minute
)

// keepAlive is the TCP keepalive of upstream connections.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 6}

// sessionSettings are set on every upstream connection so that values
// print the way types.ParseText reads them with its default settings:
// ISO dates, UTC, PostgreSQL-style intervals, hex bytea, and floats in
// their shortest exact form. The walsender prints pgoutput's text values
// with its session's settings, so these make the stream and the
// snapshot's text casts agree.
var sessionSettings = map[string]string{
	"application_name":   "streamdb",
	"client_encoding":    "UTF8",
	"DateStyle":          "ISO, MDY",
	"TimeZone":           "UTC",
	"IntervalStyle":      "postgres",
	"extra_float_digits": "3",
	"bytea_output":       "hex",
}

// validate checks the connection's settings without connecting.
func (c *Connection) validate() error {
	switch {
	case c.Host == "":
		return pgerr.New(pgerr.InvalidParameterValue, "POSTGRES connection requires a HOST")
	case c.User == "":
		return pgerr.New(pgerr.InvalidParameterValue, "POSTGRES connection requires a USER")
	case c.Database == "":
		return pgerr.New(pgerr.InvalidParameterValue, "POSTGRES connection requires a DATABASE")
	case c.Port < 0 || c.Port > 65535:
		return pgerr.New(pgerr.InvalidParameterValue, "invalid PORT %d", c.Port)
	}
	switch c.SSLMode {
	case "", "disable", "require", "verify-full":
	default:
		return pgerr.New(pgerr.InvalidParameterValue, "invalid SSL MODE %q", c.SSLMode).
			WithHint("Valid modes are disable, require and verify-full.")
	}
	if c.SSLRootCert != "" && !x509.NewCertPool().AppendCertsFromPEM([]byte(c.SSLRootCert)) {
		return pgerr.New(pgerr.InvalidParameterValue, "SSL CERTIFICATE AUTHORITY holds no PEM certificate")
	}
	return nil
}

// dsn is the connection as a keyword/value connection string.
func (c *Connection) dsn() (string, error) {
	if err := c.validate(); err != nil {
		return "", err
	}
	port := c.Port
	if port == 0 {
		port = 5432
	}
	mode := c.SSLMode
	if mode == "" {
		mode = "disable"
	}
	var dsn strings.Builder
	for _, kv := range [][2]string{
		{"host", c.Host}, {"port", strconv.Itoa(port)}, {"user", c.User},
		{"password", c.Password}, {"dbname", c.Database}, {"sslmode", mode},
		{"connect_timeout", strconv.Itoa(int(connectTimeout / time.Second))},
	} {
		dsn.WriteString(kv[0])
		dsn.WriteString("=")
		dsn.WriteString(quoteConnValue(kv[1]))
		dsn.WriteString(" ")
	}
	return dsn.String(), nil
}

// tune sets what every upstream connection needs on a parsed
// configuration: the trusted roots of verify-full, the session settings,
// and for a replication connection a walsender in database mode, which
// runs replication commands and SQL alike.
func (c *Connection) tune(cfg *pgconn.Config, replication bool) {
	if c.SSLMode == "verify-full" && c.SSLRootCert != "" {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM([]byte(c.SSLRootCert))
		cfg.TLSConfig = &tls.Config{RootCAs: pool, ServerName: c.Host, MinVersion: tls.VersionTLS12}
		for _, fb := range cfg.Fallbacks {
			fb.TLSConfig = cfg.TLSConfig
		}
	}
	for k, v := range sessionSettings {
		cfg.RuntimeParams[k] = v
	}
	cfg.DialFunc = (&net.Dialer{KeepAliveConfig: keepAlive}).DialContext
	if c.Dial != nil {
		cfg.DialFunc = c.Dial
	}
	if replication {
		cfg.RuntimeParams["replication"] = "database"
	}
}

// quoteConnValue quotes a keyword/value connection string value.
func quoteConnValue(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	return "'" + strings.ReplaceAll(v, `'`, `\'`) + "'"
}

// connectSQL opens an ordinary connection, for catalog queries and the
// snapshot.
func (c *Connection) connectSQL(ctx context.Context) (*pgx.Conn, error) {
	dsn, err := c.dsn()
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.InvalidParameterValue, "invalid POSTGRES connection: %v", err)
	}
	c.tune(&cfg.Config, false)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, upstreamError("connecting to upstream", err)
	}
	return conn, nil
}

// connectReplication opens a replication connection.
func (c *Connection) connectReplication(ctx context.Context) (*pgconn.PgConn, error) {
	dsn, err := c.dsn()
	if err != nil {
		return nil, err
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.InvalidParameterValue, "invalid POSTGRES connection: %v", err)
	}
	c.tune(cfg, true)
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, upstreamError("opening a replication connection", err)
	}
	return conn, nil
}

// upstreamError describes a failure to reach or use the upstream server.
// Errors the server sent keep their SQLSTATE (an unknown database, a
// refused password); connection failures are 08000 (connection_exception).
func upstreamError(what string, err error) error {
	if pe, ok := asPgError(err); ok {
		return &pgerr.Error{Code: pgerr.Code(pe.Code), Message: what + ": " + pe.Message, Detail: pe.Detail, Hint: pe.Hint, Err: err}
	}
	return pgerr.Wrap(err, pgerr.ConnectionException, "%s: %v", what, err)
}
