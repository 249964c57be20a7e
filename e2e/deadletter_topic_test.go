package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestDeadLetterTopicAtCreate checks what CREATE SOURCE does with a
// DEAD LETTER TOPIC that does not exist: it creates the topic (saying
// so), and the dead letters reach it; when the brokers cannot be reached
// to check, it refuses, creating nothing.
func TestDeadLetterTopicAtCreate(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	b := startBroker(t)
	b.createTopic("in", 1)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	var notices []string
	cfg := c.conn.Config().Config
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pc, err := pgconn.ConnectConfig(ctx, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(context.Background())
	exec := func(sql string) error {
		_, err := pc.Exec(ctx, sql).ReadAll()
		return err
	}
	if err := exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr)); err != nil {
		t.Fatal(err)
	}
	if err := exec(`CREATE SOURCE in_src FROM KAFKA CONNECTION kc (TOPIC 'in') FORMAT JSON WITH (DEAD LETTER TOPIC = 'in_dlq')`); err != nil {
		t.Fatal(err)
	}
	if want := `created dead letter topic "in_dlq" with the brokers' default partitions and replication`; len(notices) != 1 || notices[0] != want {
		t.Errorf("notices %q, want %q", notices, want)
	}
	topics, err := b.admin.ListTopics(ctx, "in_dlq")
	if err != nil || !topics.Has("in_dlq") {
		t.Fatalf("dead letter topic after CREATE SOURCE: %v %v", topics, err)
	}
	b.produce("in", record(0, nil, []byte(`{"a": 1}`)), record(0, nil, []byte(`not json`)))
	if recs := consumeAll(t, b, "in_dlq", 1); string(recs[0].Value) != "not json" {
		t.Errorf("dead letter %q", recs[0].Value)
	}

	// A second source naming the topic, which now exists, creates
	// nothing.
	notices = nil
	if err := exec(`CREATE SOURCE in_again FROM KAFKA CONNECTION kc (TOPIC 'in') FORMAT JSON WITH (DEAD LETTER TOPIC = 'in_dlq')`); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 0 {
		t.Errorf("notices for an existing dead letter topic: %q", notices)
	}

	// Brokers that cannot be reached refuse the source.
	c.exec(fmt.Sprintf(`CREATE CONNECTION gone TO KAFKA (BROKER '127.0.0.1:%d')`, freePort(t)))
	err = c.try(`CREATE SOURCE lost FROM KAFKA CONNECTION gone (TOPIC 'in') FORMAT JSON WITH (DEAD LETTER TOPIC = 'lost_dlq')`)
	if err == nil || !strings.Contains(err.Error(), `could not check dead letter topic "lost_dlq"`) {
		t.Fatalf("CREATE SOURCE with unreachable brokers: %v", err)
	}
	if got := c.rows(`SHOW SOURCES WHERE name = 'lost'`); got != "" {
		t.Errorf("refused source exists: %s", got)
	}
}
