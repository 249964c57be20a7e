package kafkaconn

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Connection is where and how to reach a Kafka cluster. The engine fills
// it from a CREATE CONNECTION … TO KAFKA object; Validate checks it.
type Connection struct {
	// Brokers are the bootstrap servers, host:port.
	Brokers []string
	// SASL authenticates to the brokers; the zero value means none.
	SASL SASL
	// SecurityProtocol is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL, as
	// Kafka's security.protocol. Empty derives it from SASL and TLS.
	SecurityProtocol string
	// TLS configures SSL and SASL_SSL; nil with one of those protocols
	// uses the system roots.
	TLS *tls.Config
	// Dial, when set, makes every connection to a broker, the seed
	// brokers and those the cluster's metadata names alike: the server's
	// egress policy (internal/egress) checks each destination there.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// SASL holds SASL credentials. Mechanism is PLAIN, SCRAM-SHA-256 or
// SCRAM-SHA-512 (case-insensitive); empty disables SASL.
type SASL struct {
	Mechanism string
	User      string
	Password  string
}

// Validate checks brokers, SASL and TLS, and settles SecurityProtocol
// and the SASL mechanism's spelling. Errors carry the SQLSTATE the
// statement using the connection should fail with: 42601 for a missing
// broker, 22023 for bad or contradictory values.
func (c *Connection) Validate() error {
	if len(c.Brokers) == 0 {
		return pgerr.New(pgerr.SyntaxError, "kafka connection requires at least one BROKER")
	}
	for _, b := range c.Brokers {
		if b == "" || strings.ContainsAny(b, " ,") {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid broker address %q", b).WithHint("List each broker as host:port.")
		}
	}
	mech := strings.ToUpper(c.SASL.Mechanism)
	switch mech {
	case "", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	default:
		return pgerr.New(pgerr.InvalidParameterValue, "invalid SASL MECHANISMS %q", c.SASL.Mechanism).
			WithHint("Supported mechanisms are PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512.")
	}
	c.SASL.Mechanism = mech
	if mech != "" && c.SASL.User == "" {
		return pgerr.New(pgerr.InvalidParameterValue, "SASL MECHANISMS %s requires SASL USERNAME", mech)
	}
	proto := strings.ToUpper(c.SecurityProtocol)
	if proto == "" {
		switch {
		case mech != "" && c.TLS != nil:
			proto = "SASL_SSL"
		case mech != "":
			proto = "SASL_PLAINTEXT"
		case c.TLS != nil:
			proto = "SSL"
		default:
			proto = "PLAINTEXT"
		}
	}
	sasl := proto == "SASL_PLAINTEXT" || proto == "SASL_SSL"
	ssl := proto == "SSL" || proto == "SASL_SSL"
	switch {
	case !sasl && !ssl && proto != "PLAINTEXT":
		return pgerr.New(pgerr.InvalidParameterValue, "invalid SECURITY PROTOCOL %q", c.SecurityProtocol).
			WithHint("Supported protocols are PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL.")
	case sasl && mech == "":
		return pgerr.New(pgerr.InvalidParameterValue, "SECURITY PROTOCOL %s requires SASL MECHANISMS", proto)
	case !sasl && mech != "":
		return pgerr.New(pgerr.InvalidParameterValue, "SASL MECHANISMS requires SECURITY PROTOCOL SASL_PLAINTEXT or SASL_SSL, not %s", proto)
	case !ssl && c.TLS != nil:
		return pgerr.New(pgerr.InvalidParameterValue, "TLS settings require SECURITY PROTOCOL SSL or SASL_SSL, not %s", proto)
	}
	if ssl && c.TLS == nil {
		c.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	c.SecurityProtocol = proto
	return nil
}

// ClientOpts are the franz-go options of every client on a validated
// connection: the seed brokers, streamdb's client id, logging to log,
// TLS and SASL. Callers append their own (consumer or producer) options.
func (c *Connection) ClientOpts(log *slog.Logger) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.Brokers...),
		kgo.ClientID("streamdb"),
		kgo.WithLogger(Logger(log)),
	}
	switch {
	case c.Dial != nil:
		opts = append(opts, kgo.Dialer(dialer(c.Dial, c.TLS)))
	case c.TLS != nil:
		opts = append(opts, kgo.DialTLSConfig(c.TLS.Clone()))
	}
	user, pass := c.SASL.User, c.SASL.Password
	switch c.SASL.Mechanism {
	case "PLAIN":
		opts = append(opts, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
	case "SCRAM-SHA-256":
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()))
	case "SCRAM-SHA-512":
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()))
	}
	return opts
}

// dialTimeout bounds a dial, as franz-go's default dialer does.
const dialTimeout = 10 * time.Second

// dialer wraps dial with TLS when the connection has it: franz-go takes
// either a dial function or a TLS configuration, not both, so the TLS
// handshake is made here as franz-go's would (ServerName from the
// broker's host unless set).
func dialer(dial func(ctx context.Context, network, address string) (net.Conn, error), cfg *tls.Config) func(ctx context.Context, network, host string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		conn, err := dial(ctx, network, address)
		if err != nil || cfg == nil {
			return conn, err
		}
		c := cfg.Clone()
		if c.ServerName == "" {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				conn.Close()
				return nil, err
			}
			c.ServerName = host
		}
		tc := tls.Client(conn, c)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		return tc, nil
	}
}
