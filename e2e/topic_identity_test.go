package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// stalledWith waits until SHOW SOURCES says source is stalled for a
// reason containing each of parts, and returns the status.
func stalledWith(t *testing.T, c *client, source string, parts ...string) string {
	t.Helper()
	return c.waitFor(fmt.Sprintf(`SHOW SOURCES WHERE name = '%s'`, source), "the source to stall", func(got string) bool {
		if !strings.HasPrefix(got, source+"|kafka|stalled: ") {
			return false
		}
		for _, p := range parts {
			if !strings.Contains(got, p) {
				return false
			}
		}
		return true
	})
}

// TestKafkaTopicRecreated deletes a source's topic and creates it again
// under the same name, and later restarts the in-memory broker (which
// loses its topics) and creates it once more: each time the source stalls
// saying what happened and what to do rather than read the new topic by
// the old offsets, keeps stalling across a restart of streamdb, and ALTER
// SOURCE … RESET reads the new topic from its beginning without losing or
// repeating a record of either.
func TestKafkaTopicRecreated(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	b := startBroker(t)
	b.createTopic("events", 2)
	dir := t.TempDir()
	srv := startServer(t, dir)
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE SOURCE events FROM KAFKA CONNECTION kc (TOPIC 'events') FORMAT TEXT`)
	c.exec(`CREATE MATERIALIZED VIEW counts AS SELECT count(*) AS n, count(DISTINCT text) AS d FROM events`)
	waitProgress(t, c, "events", b.produce("events", lines("first", 0, 200)...))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := b.admin.DeleteTopic(ctx, "events"); err != nil {
		t.Fatal(err)
	}
	b.createTopic("events", 2)
	b.connect()
	b.produce("events", lines("second", 0, 50)...)
	status := stalledWith(t, c, "events", `topic "events" is not the topic this source read`, "ALTER SOURCE events RESET")
	t.Logf("after the topic was created again: %s", status)

	// Restarted, streamdb remembers the topic it read.
	srv.Stop()
	srv = startServer(t, dir)
	c = connect(t, srv.URL)
	stalledWith(t, c, "events", "is not the topic this source read")
	time.Sleep(time.Second) // records the source must not read arrive meanwhile
	if got := c.rows(`SELECT n, d FROM counts`); got != "200|200" {
		t.Fatalf("stalled source read the new topic by the old offsets: %s", got)
	}
	if got := c.try(`ALTER SOURCE counts RESET`); got == nil || !strings.Contains(got.Error(), `"counts" is not a source`) {
		t.Errorf("ALTER SOURCE of a view: %v", got)
	}

	c.exec(`ALTER SOURCE events RESET`)
	c.waitRows(`SELECT n, d FROM counts`, "250|250")
	c.waitRows(`SHOW SOURCES WHERE name = 'events'`, "events|kafka|running|NULL|NULL|NULL|NULL|true")
	waitProgress(t, c, "events", b.produce("events", lines("second", 50, 10)...))
	if got := c.rows(`SELECT count(*) FILTER (WHERE text LIKE 'first-%'), count(*) FILTER (WHERE text LIKE 'second-%') FROM events`); got != "200|60" {
		t.Errorf("first and second topic's records after RESET: %s, want 200|60", got)
	}

	// The in-memory broker restarts without its topics; a producer
	// creates the topic again.
	b.stop()
	b.start()
	b.connect()
	b.createTopic("events", 2)
	b.produce("events", lines("third", 0, 100)...)
	stalledWith(t, c, "events", "is not the topic this source read")
	c.exec(`ALTER SOURCE events RESET`)
	c.waitRows(`SELECT n, d FROM counts`, "360|360")
}

// TestKafkaOffsetsWentBackwards gives a running source's persistent
// broker back an older copy of its data directory: the topic keeps its ID
// but its partitions end before the offsets the source has read, as when
// a broker loses acknowledged records. The source stalls saying so, reads
// none of the records that later take the lost offsets, and reads them
// after ALTER SOURCE … RESET.
func TestKafkaOffsetsWentBackwards(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	dir := t.TempDir()
	b := newBroker(t, []kfake.Opt{kfake.DataDir(dir)}, nil)
	b.createTopic("log", 2)
	early := b.produce("log", lines("early", 0, 40)...)
	b.stop()
	old := t.TempDir()
	if err := os.CopyFS(old, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	b.start()
	b.connect()

	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE SOURCE log FROM KAFKA CONNECTION kc (TOPIC 'log') FORMAT TEXT`)
	ends := b.produce("log", lines("late", 40, 60)...)
	mergeEnds(ends, early)
	waitProgress(t, c, "log", ends)

	b.stop()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(old)); err != nil {
		t.Fatal(err)
	}
	b.start()
	b.connect()
	status := stalledWith(t, c, "log", `of topic "log" ends at offset 20, before offset 50 that this source has read up to`, "ALTER SOURCE log RESET")
	t.Logf("after the broker lost records: %s", status)
	b.produce("log", lines("again", 100, 60)...)
	time.Sleep(time.Second) // records at the lost offsets arrive meanwhile
	if got := c.rows(`SELECT count(*), count(*) FILTER (WHERE text LIKE 'again-%') FROM log`); got != "100|0" {
		t.Fatalf("stalled source read records at offsets it had read before: %s", got)
	}
	c.exec(`ALTER SOURCE log RESET`)
	c.waitRows(`SELECT count(*), count(*) FILTER (WHERE text LIKE 'again-%') FROM log`, "200|60")
}
