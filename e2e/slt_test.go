package e2e

import "testing"

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
