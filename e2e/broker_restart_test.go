package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// lines returns n text records "prefix-i" for i from `from`, alternating
// between two partitions.
func lines(prefix string, from, n int) []*kgo.Record {
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = record(int32((from+i)%2), nil, []byte(fmt.Sprintf("%s-%d", prefix, from+i)))
	}
	return recs
}

// mergeEnds folds new end offsets into ends.
func mergeEnds(ends, more map[int32]int64) {
	for p, e := range more {
		ends[p] = max(ends[p], e)
	}
}

// TestBrokerRestart stops the broker under a running source: SHOW SOURCES
// reports it stalled with the reason while other sources, tables and
// queries carry on, and once the broker is back the source runs again and
// has read every record exactly once.
func TestBrokerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	flaky := startPersistentBroker(t)
	flaky.createTopic("flaky", 2)
	steady := startBroker(t)
	steady.createTopic("steady", 2)

	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION flaky_kc TO KAFKA (BROKER '%s')`, flaky.addr))
	c.exec(fmt.Sprintf(`CREATE CONNECTION steady_kc TO KAFKA (BROKER '%s')`, steady.addr))
	c.exec(`CREATE SOURCE flaky FROM KAFKA CONNECTION flaky_kc (TOPIC 'flaky') FORMAT TEXT`)
	c.exec(`CREATE SOURCE steady FROM KAFKA CONNECTION steady_kc (TOPIC 'steady') FORMAT TEXT`)
	c.exec(`CREATE MATERIALIZED VIEW flaky_count AS SELECT count(*) AS n, count(DISTINCT text) AS d FROM flaky`)
	c.exec(`CREATE TABLE notes (id int PRIMARY KEY, body text)`)

	ends := flaky.produce("flaky", lines("before", 0, 500)...)
	waitProgress(t, c, "flaky", ends)

	flaky.stop()
	status := c.waitFor(`SHOW SOURCES WHERE name = 'flaky'`, "the source to stall", func(got string) bool {
		return strings.HasPrefix(got, "flaky|kafka|stalled: ")
	})
	t.Logf("while the broker is down: %s", status)

	// Everything else goes on meanwhile.
	steadyEnds := steady.produce("steady", lines("steady", 0, 100)...)
	waitProgress(t, c, "steady", steadyEnds)
	c.exec(`INSERT INTO notes VALUES (1, 'broker down')`)
	if got := c.rows(`SELECT body FROM notes`); got != "broker down" {
		t.Errorf("table read %q while the broker was down", got)
	}
	if got := c.rows(`SELECT n, d FROM flaky_count`); got != "500|500" {
		t.Errorf("view over the stalled source is %s, want 500|500", got)
	}
	if got := c.rows(`SHOW SOURCES WHERE name = 'steady'`); got != "steady|kafka|running|NULL|NULL|NULL" {
		t.Errorf("the other source is %q while the broker is down", got)
	}

	time.Sleep(time.Second) // let the source retry against the dead broker a while
	flaky.start()
	c.waitRows(`SHOW SOURCES WHERE name = 'flaky'`, "flaky|kafka|running|NULL|NULL|NULL")
	mergeEnds(ends, flaky.produce("flaky", lines("after", 500, 500)...))
	waitProgress(t, c, "flaky", ends)
	c.waitRows(`SELECT n, d FROM flaky_count`, "1000|1000")
	time.Sleep(time.Second) // would-be duplicates arrive meanwhile
	if got := c.rows(`SELECT count(*), count(DISTINCT text), count(*) FILTER (WHERE text LIKE 'after-%') FROM flaky`); got != "1000|1000|500" {
		t.Errorf("count, distinct, after the restart = %s, want 1000|1000|500", got)
	}
	if got := c.rows(`SELECT n, d FROM flaky_count`); got != "1000|1000" {
		t.Errorf("view after the restart = %s, want 1000|1000", got)
	}
}
