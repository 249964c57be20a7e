package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/internal/selfsigned"
)

func TestSASLMechanisms(t *testing.T) {
	for _, tc := range []struct {
		mech string
		auth sasl.Mechanism
	}{
		{"PLAIN", plain.Auth{User: "u", Pass: "p"}.AsMechanism()},
		{"SCRAM-SHA-256", scram.Auth{User: "u", Pass: "p"}.AsSha256Mechanism()},
		{"SCRAM-SHA-512", scram.Auth{User: "u", Pass: "p"}.AsSha512Mechanism()},
	} {
		t.Run(tc.mech, func(t *testing.T) {
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(tc.mech, "u", "p"), kfake.SeedTopics(1, "s"))
			if err != nil {
				t.Fatal(err)
			}
			defer cluster.Close()
			addrs := cluster.ListenAddrs()
			p, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.SASL(tc.auth))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			produceN(t, p, "s", 1, 0, 2)
			cfg := textConfig(addrs, "s")
			cfg.SASL = kafkaconn.SASL{Mechanism: tc.mech, User: "u", Password: "p"}
			sink, _ := start(t, mustNew(t, cfg), nil)
			if got := sink.waitChanges(t, 2); !slices.Equal(values(got), want(0, 2)) {
				t.Fatalf("read %v", values(got))
			}
		})
	}
}

// selfSigned returns a fresh certificate for 127.0.0.1 and a pool that
// trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	c, err := selfsigned.New("devkafka", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return c.TLS, c.Pool
}

func TestTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "tls"),
		kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	addrs := cluster.ListenAddrs()
	clientTLS := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	p, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DialTLSConfig(clientTLS.Clone()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	produceN(t, p, "tls", 1, 0, 2)

	cfg := textConfig(addrs, "tls")
	cfg.TLS = clientTLS
	sink, _ := start(t, mustNew(t, cfg), nil)
	if got := sink.waitChanges(t, 2); !slices.Equal(values(got), want(0, 2)) {
		t.Fatalf("read %v", values(got))
	}
}
