package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Queries rendering the tests' relations as their sinks' keys and values.
const (
	accountsState = `SELECT json_build_object('id', id), json_build_object('id', id, 'owner', owner, 'balance', balance) FROM accounts`
	ownersState   = `SELECT json_build_object('owner', owner), json_build_object('owner', owner, 'total', total, 'n', n) FROM owners`
)

// TestSinkToKafka sinks a table (ENVELOPE UPSERT) and a GROUP BY view
// (ENVELOPE DEBEZIUM) into Kafka through SQL, and checks with
// read_committed consumers that each topic ends as its relation is, that
// every change arrives once, and the statements around sinks: a key that
// is not unique, SHOW SINKS, the topic's partitions, DROP.
func TestSinkToKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	b := startBroker(t)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE TABLE accounts (id int PRIMARY KEY, owner text, balance numeric(10,2))`)
	c.exec(`INSERT INTO accounts VALUES (1, 'ada', 10.50), (2, 'bob', 3.99), (3, 'ada', 7)`)
	c.exec(`CREATE MATERIALIZED VIEW owners AS SELECT owner, sum(balance) AS total, count(*) AS n FROM accounts GROUP BY owner`)

	err := c.try(`CREATE SINK bad FROM accounts INTO KAFKA CONNECTION kc (TOPIC 'bad') KEY (owner) FORMAT JSON ENVELOPE UPSERT`)
	if code := sqlState(err); code != "23505" {
		t.Fatalf("a KEY that is not unique: %v", err)
	}
	c.exec(`CREATE SINK by_owner FROM accounts INTO KAFKA CONNECTION kc (TOPIC 'by_owner') KEY (owner) NOT ENFORCED FORMAT JSON ENVELOPE UPSERT`)
	c.exec(`DROP SINK by_owner`)
	c.exec(`CREATE SINK acct_sink FROM accounts INTO KAFKA CONNECTION kc (TOPIC 'accounts', TOPIC PARTITION COUNT 3) KEY (id) FORMAT JSON ENVELOPE UPSERT`)
	c.exec(`CREATE SINK owner_sink FROM owners INTO KAFKA CONNECTION kc (TOPIC 'owners') KEY (owner) FORMAT JSON ENVELOPE DEBEZIUM`)
	c.exec(`CREATE SINK IF NOT EXISTS owner_sink FROM owners INTO KAFKA CONNECTION kc (TOPIC 'x') KEY (owner) FORMAT JSON ENVELOPE DEBEZIUM`)
	c.waitRows(`SHOW SINKS`, "acct_sink|kafka|running\nowner_sink|kafka|running")

	accounts := readTopic(t, b.addr, "accounts", false)
	owners := readTopic(t, b.addr, "owners", true)
	accounts.waitState(relationState(t, c, accountsState), "after the snapshot")
	owners.waitState(relationState(t, c, ownersState), "after the snapshot")

	c.exec(`INSERT INTO accounts VALUES (4, 'cy', 1.25)`)
	c.exec(`UPDATE accounts SET balance = balance + 1 WHERE owner = 'ada'`)
	c.exec(`DELETE FROM accounts WHERE id = 2`)
	c.exec(`BEGIN; INSERT INTO accounts VALUES (5, 'bob', 100); UPDATE accounts SET owner = 'bob' WHERE id = 4; COMMIT`)
	accounts.waitState(relationState(t, c, accountsState), "after the changes")
	owners.waitState(relationState(t, c, ownersState), "after the changes")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	topics, err := b.admin.ListTopics(ctx, "accounts")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(topics["accounts"].Partitions); n != 3 {
		t.Errorf("topic accounts has %d partitions, want 3 (TOPIC PARTITION COUNT)", n)
	}

	if err := c.try(`DROP TABLE accounts`); sqlState(err) != "2BP01" {
		t.Errorf("DROP TABLE under a sink: %v", err)
	}
	c.exec(`DROP SINK acct_sink`)
	c.waitRows(`SHOW SINKS`, "owner_sink|kafka|running")
	c.exec(`INSERT INTO accounts VALUES (6, 'dee', 2)`)
	owners.waitState(relationState(t, c, ownersState), "after dropping the other sink")
	before := accounts.records
	time.Sleep(time.Second)
	accounts.poll()
	if accounts.records != before {
		t.Errorf("a dropped sink wrote %d more records", accounts.records-before)
	}
	c.exec(`DROP TABLE accounts CASCADE`)
	c.waitRows(`SHOW SINKS`, "")
}

// TestSinkBrokerRestart stops the broker under a running sink: SHOW
// SINKS says stalled with the broker's reason while writes go on, and
// once the broker is back the sink catches up, losing and repeating
// nothing.
func TestSinkBrokerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	b := startPersistentBroker(t)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE TABLE accounts (id int PRIMARY KEY, owner text, balance numeric(10,2))`)
	c.exec(`INSERT INTO accounts SELECT g, 'o' || (g % 7), g FROM generate_series(1, 50) AS g`)
	c.exec(`CREATE MATERIALIZED VIEW owners AS SELECT owner, sum(balance) AS total, count(*) AS n FROM accounts GROUP BY owner`)
	c.exec(`CREATE SINK owner_sink FROM owners INTO KAFKA CONNECTION kc (TOPIC 'owners') KEY (owner) FORMAT JSON ENVELOPE DEBEZIUM`)
	owners := readTopic(t, b.addr, "owners", true)
	owners.waitState(relationState(t, c, ownersState), "before the broker stops")

	b.stop()
	for i := range 20 {
		c.exec(fmt.Sprintf(`UPDATE accounts SET balance = balance + 1 WHERE id %% 20 = %d`, i))
	}
	status := c.waitFor(`SHOW SINKS`, "the sink to stall", func(got string) bool {
		return strings.HasPrefix(got, "owner_sink|kafka|stalled: ")
	})
	t.Logf("while the broker is down: %s", status)
	if !strings.Contains(status, "127.0.0.1") {
		t.Errorf("the stall does not name the broker: %s", status)
	}
	c.exec(`INSERT INTO accounts VALUES (1000, 'new', 5)`)

	b.start()
	b.connect()
	c.waitRows(`SHOW SINKS`, "owner_sink|kafka|running")
	c.exec(`DELETE FROM accounts WHERE id < 10`)
	owners.cl.Close()
	owners = readTopic(t, b.addr, "owners", true)
	owners.waitState(relationState(t, c, ownersState), "after the broker came back")
}

// TestSinkKill9 kills the real server with SIGKILL again and again while
// a writer keeps changing a table under two sinks, one of the table and
// one of a GROUP BY view: after every restart the sinks resume after what
// they committed to Kafka, from the history kept in the server's store,
// and read_committed consumers see every change exactly once and end
// with the relations' contents.
func TestSinkKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the server; skipped with -short")
	}
	const kills = 4
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))

	b := startBroker(t)
	dataDir := t.TempDir()
	srv, addr := startStreamdb(t, dataDir)
	c := connect(t, pgURL(addr))
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE TABLE events (id int PRIMARY KEY, k int, v int)`)
	c.exec(`CREATE MATERIALIZED VIEW ksum AS SELECT k, count(*) AS n, sum(v) AS s FROM events GROUP BY k`)
	c.exec(`CREATE SINK ev_sink FROM events INTO KAFKA CONNECTION kc (TOPIC 'events', TOPIC PARTITION COUNT 2) KEY (id) FORMAT JSON ENVELOPE DEBEZIUM`)
	c.exec(`CREATE SINK ksum_sink FROM ksum INTO KAFKA CONNECTION kc (TOPIC 'ksum') KEY (k) FORMAT JSON ENVELOPE UPSERT`)
	events := readTopic(t, b.addr, "events", true)
	ksum := readTopic(t, b.addr, "ksum", false)

	// The writer inserts rows and updates earlier ones, a transaction at
	// a time, through whichever server is up.
	var current atomic.Pointer[string]
	current.Store(&addr)
	stop, stopped := make(chan struct{}), make(chan int)
	go func() {
		commits, next := 0, 0
		var conn *pgx.Conn
		defer func() { stopped <- commits }()
		for {
			select {
			case <-stop:
				if conn != nil {
					conn.Close(context.Background())
				}
				return
			default:
			}
			if conn == nil {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				conn, _ = pgx.Connect(ctx, pgURL(*current.Load()))
				cancel()
				if conn == nil {
					time.Sleep(50 * time.Millisecond)
					continue
				}
			}
			sql := fmt.Sprintf(`BEGIN; INSERT INTO events SELECT g, g %% 13, g FROM generate_series(%d, %d) AS g; UPDATE events SET v = v + 1 WHERE id %% 97 = %d; COMMIT`,
				next, next+19, next%97)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := conn.PgConn().Exec(ctx, sql).ReadAll()
			cancel()
			if err != nil {
				conn.Close(context.Background())
				conn = nil
				// The commit may have happened or not: the table says.
				continue
			}
			next += 20
			commits++
		}
	}()

	var restarted []*process
	for round := range kills {
		events.poll()
		time.Sleep(time.Duration(300+rng.IntN(700)) * time.Millisecond)
		srv.kill()
		t.Logf("kill %d: the consumer had read %d records", round, events.records)
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		srv, addr = startStreamdb(t, dataDir)
		restarted = append(restarted, srv)
		current.Store(&addr)
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	commits := <-stopped
	c = connect(t, pgURL(addr))
	n := c.rows(`SELECT count(*) FROM events`)
	t.Logf("%d transactions acknowledged, %s rows", commits, n)
	if commits < kills {
		t.Fatalf("only %d transactions committed: the test proved little", commits)
	}
	events.waitState(relationState(t, c, `SELECT json_build_object('id', id), json_build_object('id', id, 'k', k, 'v', v) FROM events`), "events after the kills")
	ksum.waitState(relationState(t, c, `SELECT json_build_object('k', k), json_build_object('k', k, 'n', n, 's', s) FROM ksum`), "ksum after the kills")
	c.waitRows(`SHOW SINKS`, "ev_sink|kafka|running\nksum_sink|kafka|running")

	// The restarted sinks resumed from the history the server kept, not
	// from a snapshot compared with the topic.
	resumed := 0
	for _, p := range restarted {
		log := p.log.String()
		resumed += strings.Count(log, "kafka sink started") - strings.Count(log, "resume=false")
		if strings.Contains(log, "resumed from a snapshot") {
			t.Errorf("a sink resumed from a snapshot instead of its history:\n%s", log)
		}
	}
	if resumed < kills {
		t.Errorf("%d sinks resumed from their history across %d restarts, want at least %d", resumed, kills, kills)
	}
}
