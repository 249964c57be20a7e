package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestRelativeStartTimestampSurvivesRestart creates a source with a
// relative START TIMESTAMP on an empty topic, so that it has no position
// yet, and restarts the server later. The timestamp is relative to when
// CREATE SOURCE ran: a record inside that window must be read after the
// restart too.
func TestRelativeStartTimestampSurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	b := startBroker(t)
	b.createTopic("relative", 1)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	created := time.Now()
	c.exec(`CREATE SOURCE relative FROM KAFKA CONNECTION kc (TOPIC 'relative', START TIMESTAMP -2000) FORMAT TEXT`)
	c.waitRows(`SHOW SOURCES WHERE name = 'relative'`, "relative|kafka|running|NULL|NULL|NULL")
	srv.Stop()

	// Produced while the server is down, one second after the window
	// opened; the restart comes more than two seconds after CREATE.
	inside := &kgo.Record{Value: []byte("inside the window"), Timestamp: created.Add(-time.Second)}
	b.produce("relative", inside)
	time.Sleep(time.Until(created.Add(2500 * time.Millisecond)))
	srv = startServer(t, srv.Dir)
	c = connect(t, srv.URL)
	b.produce("relative", record(0, nil, []byte("after the restart")))
	c.waitFor(`SELECT count(*) FROM relative WHERE text = 'after the restart'`, "the record produced after the restart", func(got string) bool { return got == "1" })
	if got := c.rows(`SELECT text FROM relative ORDER BY text`); got != "after the restart\ninside the window" {
		t.Errorf("after the restart the source read %q, want both records", got)
	}
}
