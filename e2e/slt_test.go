package e2e

import "testing"

// TestKafkaSuite runs testdata/kafka.slt against an in-process streamdb, a
// kfake broker and a second one that requires SASL PLAIN as ada/hunter2.
func TestKafkaSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka suite; skipped with -short")
	}
	b := startBroker(t)
	sasl := startSASLBroker(t, "ada", "hunter2")
	s, err := loadSuite("testdata/kafka.slt", map[string]string{"KAFKA_BROKER": b.addr, "KAFKA_SASL_BROKER": sasl.addr})
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "")
	s.run(t, connect(t, srv.URL), map[string]*broker{"": b, "sasl": sasl})
}
