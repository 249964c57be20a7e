package e2e

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// snapshotProgress matches a subsource's SHOW SOURCES row while its table
// is read: the rows read so far out of upstream's estimate.
var snapshotProgress = regexp.MustCompile(`^big\|subsource\|snapshotting: (\d+) of ~(\d+) rows\|`)

// TestPostgresShowSources follows a source through SHOW SOURCES as a user
// would: a large table's snapshot shows its progress, then the source
// runs with the LSN its slot has confirmed upstream and its lag; psql's
// \d lists the subsources, and a column of a type streamdb lacks is
// refused with a hint naming TEXT COLUMNS.
func TestPostgresShowSources(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end PostgreSQL test; skipped with -short")
	}
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE big (id int8 PRIMARY KEY, v int4, note text);
		INSERT INTO big SELECT g, g % 97, repeat('x', g % 40) FROM generate_series(1, 400000) g;
		ANALYZE big;
		CREATE TABLE small (id int PRIMARY KEY, s text);
		INSERT INTO small VALUES (1, 'a');
		CREATE TABLE shapes (id int PRIMARY KEY, c circle);
		CREATE PUBLICATION pub FOR TABLE big, small;
		CREATE PUBLICATION pub_shapes FOR TABLE shapes;`)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(u.connectionSQL("pg"))

	err := c.try(`CREATE SOURCE bad FROM POSTGRES CONNECTION pg (PUBLICATION 'pub_shapes') FOR ALL TABLES`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "0A000" || !strings.Contains(pgErr.Message, "circle") || !strings.Contains(pgErr.Hint, "TEXT COLUMNS") {
		t.Fatalf("a circle column: got %v (hint %q), want 0A000 naming circle with a hint naming TEXT COLUMNS", err, hintOf(pgErr))
	}

	c.exec(`CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
	// The snapshot of big is reported while it is read, its rows growing
	// towards upstream's estimate.
	progress := c.waitFor(`SHOW SOURCES WHERE name = 'big'`, "big's snapshot progress", func(got string) bool {
		m := snapshotProgress.FindStringSubmatch(got)
		return m != nil && m[1] != "0"
	})
	m := snapshotProgress.FindStringSubmatch(progress)
	done, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	if total < 300000 || total > 500000 || done > total {
		t.Errorf("snapshot progress %q: want some of ~400000 rows", progress)
	}
	t.Logf("during the snapshot: %s", progress)
	waitRunning(c, "app")
	c.waitRows(`SELECT count(*) FROM big`, "400000")

	// Once upstream's writes are applied, the confirmed LSN reaches the
	// position after them and the lag falls to nothing.
	u.exec(`INSERT INTO small VALUES (2, 'b'); UPDATE big SET v = v + 1 WHERE id <= 1000`)
	after := u.rows(`SELECT pg_current_wal_lsn()`)
	c.waitRows(`SELECT count(*) FROM small`, "2")
	status := c.waitFor(`SHOW SOURCES WHERE name = 'app'`, "the confirmed LSN to pass "+after, func(got string) bool {
		f := strings.Split(got, "|")
		return len(f) == 8 && f[2] == "running" && u.rows(`SELECT '`+f[3]+`'::pg_lsn >= '`+after+`'::pg_lsn`) == "t" && f[4] == "0"
	})
	t.Logf("after upstream's writes: %s", status)
	if f := strings.Split(status, "|"); f[5] == "NULL" || strings.HasPrefix(f[5], "-") {
		t.Errorf("lag_seconds of a running source is %s", f[5])
	}
	// The source's slot upstream is told as much by the next status update.
	lsn := strings.Split(status, "|")[3]
	deadline := time.Now().Add(waitTimeout)
	for u.rows(`SELECT confirmed_flush_lsn >= '`+lsn+`'::pg_lsn FROM pg_replication_slots WHERE database = current_database()`) != "t" {
		if time.Now().After(deadline) {
			t.Fatalf("the slot upstream has not confirmed %s: %s", lsn, u.slots())
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.waitRows(`SHOW SOURCES WHERE type = 'subsource' AND name IN ('big', 'small')`, "big|subsource|running|NULL|NULL|NULL|NULL|true\nsmall|subsource|running|NULL|NULL|NULL|NULL|true")

	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql is not installed (Debian package postgresql-client)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "psql", srv.URL, "-X", "-c", `\d`).CombinedOutput()
	if err != nil {
		t.Fatalf("psql \\d: %v\n%s", err, out)
	}
	for _, want := range []string{
		`public | big  *| table`,
		`public | small *| table`,
	} {
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("psql \\d lists no %q:\n%s", want, out)
		}
	}
	out, err = exec.CommandContext(ctx, "psql", srv.URL, "-X", "-c", `\d big`).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "not null") || !strings.Contains(string(out), "PRIMARY KEY") {
		t.Errorf("psql \\d big: %v\n%s", err, out)
	}
}

func hintOf(e *pgconn.PgError) string {
	if e == nil {
		return ""
	}
	return e.Hint
}
