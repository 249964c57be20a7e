package kafkaconn

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

func TestValidate(t *testing.T) {
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	for _, tc := range []struct {
		name  string
		conn  Connection
		code  pgerr.Code // empty: valid
		want  string     // error substring, or the settled protocol
		isTLS bool
	}{
		{"plaintext", Connection{Brokers: []string{"b:9092"}}, "", "PLAINTEXT", false},
		{"tls implies ssl", Connection{Brokers: []string{"b:9092"}, TLS: tlsCfg}, "", "SSL", true},
		{"sasl implies sasl_plaintext", Connection{Brokers: []string{"b:9092"}, SASL: SASL{Mechanism: "plain", User: "u"}}, "", "SASL_PLAINTEXT", false},
		{"sasl and tls", Connection{Brokers: []string{"b:9092"}, SASL: SASL{Mechanism: "scram-sha-512", User: "u"}, TLS: tlsCfg}, "", "SASL_SSL", true},
		{"ssl gets default roots", Connection{Brokers: []string{"b:9092"}, SecurityProtocol: "ssl"}, "", "SSL", true},
		{"no broker", Connection{}, pgerr.SyntaxError, "BROKER", false},
		{"broker list in one string", Connection{Brokers: []string{"a:1,b:2"}}, pgerr.InvalidParameterValue, "broker address", false},
		{"unknown mechanism", Connection{Brokers: []string{"b:1"}, SASL: SASL{Mechanism: "GSSAPI", User: "u"}}, pgerr.InvalidParameterValue, "SASL MECHANISMS", false},
		{"mechanism without user", Connection{Brokers: []string{"b:1"}, SASL: SASL{Mechanism: "PLAIN"}}, pgerr.InvalidParameterValue, "USERNAME", false},
		{"unknown protocol", Connection{Brokers: []string{"b:1"}, SecurityProtocol: "QUIC"}, pgerr.InvalidParameterValue, "SECURITY PROTOCOL", false},
		{"sasl protocol without mechanism", Connection{Brokers: []string{"b:1"}, SecurityProtocol: "SASL_SSL"}, pgerr.InvalidParameterValue, "requires SASL MECHANISMS", false},
		{"tls with plaintext", Connection{Brokers: []string{"b:1"}, SecurityProtocol: "PLAINTEXT", TLS: tlsCfg}, pgerr.InvalidParameterValue, "TLS", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.conn
			err := c.Validate()
			if tc.code != "" {
				if pgerr.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v (%s), want %s containing %q", err, pgerr.CodeOf(err), tc.code, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.SecurityProtocol != tc.want || (c.TLS != nil) != tc.isTLS {
				t.Fatalf("settled %s (tls %v), want %s (tls %v)", c.SecurityProtocol, c.TLS != nil, tc.want, tc.isTLS)
			}
			if c.SASL.Mechanism != strings.ToUpper(tc.conn.SASL.Mechanism) {
				t.Fatalf("mechanism %q not upper-cased", c.SASL.Mechanism)
			}
		})
	}
}

func TestBrokerErrorsExplain(t *testing.T) {
	var h BrokerErrors
	began := time.Now()
	if err := h.Explain(context.DeadlineExceeded, began); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("nothing noted: got %v", err)
	}
	h.note(fmt.Errorf("connecting to b:1: refused"))
	if err := h.Explain(fmt.Errorf("init: %w", context.DeadlineExceeded), began); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("a timeout should be explained by the noted failure, got %v", err)
	}
	other := errors.New("topic authorization failed")
	if err := h.Explain(other, began); err != other {
		t.Fatalf("a broker's own answer must stay, got %v", err)
	}
	if err := h.Explain(context.DeadlineExceeded, time.Now().Add(time.Second)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a failure noted before began must not explain, got %v", err)
	}
}
