package e2e

import (
	"strconv"
	"testing"

	"github.com/streamdb/streamdb/internal/pgtest"
)

// TestKafkaSuite runs testdata/kafka.slt against an in-process streamdb, a
// kfake broker and two that require SASL as ada/hunter2, one by PLAIN and
// one by SCRAM-SHA-256.
func TestKafkaSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka suite; skipped with -short")
	}
	b := startBroker(t)
	sasl := startSASLBroker(t, "PLAIN", "ada", "hunter2")
	scram := startSASLBroker(t, "SCRAM-SHA-256", "ada", "hunter2")
	s, err := loadSuite("testdata/kafka.slt", map[string]string{
		"KAFKA_BROKER": b.addr, "KAFKA_SASL_BROKER": sasl.addr, "KAFKA_SCRAM_BROKER": scram.addr})
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "")
	s.run(t, connect(t, srv.URL), map[string]*broker{"": b, "sasl": sasl, "scram": scram})
}

// TestPostgresSuite runs testdata/postgres.slt against an in-process
// streamdb and a PostgreSQL 15 cluster of its own, which ${PG_PORT} and
// ${PG_DATABASE} name and postgres-execute blocks change. Roles other than
// postgres log in with a password (scram-sha-256), so the suite's
// connections authenticate with their secrets.
func TestPostgresSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end PostgreSQL suite; skipped with -short")
	}
	if !pgtest.Available() {
		t.Skipf("PostgreSQL 15 server binaries not found in %s", pgtest.BinDir)
	}
	settings := append([]string{pgtest.HBAFile(t,
		"host all postgres 127.0.0.1/32 trust",
		"host all all 127.0.0.1/32 scram-sha-256",
	)}, pgSettings...)
	u := newUpstream(t, pgtest.Start(t, settings...))
	s, err := loadSuite("testdata/postgres.slt", map[string]string{"PG_PORT": strconv.Itoa(u.c.Port), "PG_DATABASE": u.db})
	if err != nil {
		t.Fatal(err)
	}
	s.upstream = &client{t: t, conn: u.conn}
	srv := startServer(t, "")
	s.run(t, connect(t, srv.URL), nil)
}
