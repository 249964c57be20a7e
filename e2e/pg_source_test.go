package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pgAllTypes is an upstream table with a column of every type streamdb
// replicates: its scalar types, arrays of them, an enum and domains, and
// a type it lacks (point) listed in TEXT COLUMNS.
const pgAllTypes = `
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);
CREATE TABLE all_types (
	id int8 PRIMARY KEY,
	b bool, i2 int2, i4 int4 NOT NULL, f4 float4, f8 float8,
	n numeric, n2 numeric(10,3), t text, vc varchar(20), c char(5), by bytea,
	d date, tm time, ts timestamp, ts3 timestamp(3), tz timestamptz, iv interval,
	u uuid, j json, jb jsonb,
	m mood, p posint,
	ai int4[], at text[], am mood[], an numeric(5,1)[], atz timestamptz[], ab bool[], ajb jsonb[],
	au uuid[], aby bytea[], ad date[], af8 float8[],
	pt point
);
CREATE PUBLICATION pub FOR ALL TABLES;
`

// pgAllTypesRows inserts rows of every kind of value, NULLs and edge cases
// included, with ids from base+1.
func pgAllTypesRows(base int) string {
	r := strings.NewReplacer("$1", strconv.Itoa(base+1), "$2", strconv.Itoa(base+2), "$3", strconv.Itoa(base+3))
	return r.Replace(`
INSERT INTO all_types VALUES
($1, true, -32768, 2147483647, 1.5, 0.1, 123456789012345678901234567890.000123, 1234567.125, 'héllo wörld ✓', 'varchar', 'ab', '\xdeadbeef',
 '2024-02-29', '23:59:59.999999', '2024-01-01 12:00:00.123456', '1999-12-31 23:59:59.999', '2024-06-01 12:00:00+02', '1 year 2 mons 3 days 04:05:06.789',
 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": 1,  "a": [1, 2]}', '{"b": 1, "a": {"c": [true, null, "x"]}}',
 'happy', 7,
 '{1,NULL,3}', '{"a b","c,d","e\"f",NULL,""}', '{sad,happy}', '{1.5,NULL}', '{"2024-01-01 00:00:00+00"}', '{t,f}', ARRAY['{"k": 1}'::jsonb, '[]'],
 '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', ARRAY['\x00'::bytea, '\xff'], '{2024-02-29,infinity}', '{NaN,-Infinity,1.25}',
 '(1.5,-2)'),
($2, false, 0, -2147483648, 'NaN', '-Infinity', 'NaN', -0.001, '', '', '', '\x',
 'infinity', '00:00:00', '-infinity', 'infinity', '1970-01-01 00:00:00+00', '-3 days -00:00:01',
 '00000000-0000-0000-0000-000000000000', '[]', '{}',
 'sad', 1,
 '{}', '{}', '{}', '{}', '{}', '{}', '{}',
 '{}', '{}', '{}', '{}',
 NULL),
($3, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
 NULL, NULL, NULL, NULL, NULL, NULL,
 NULL, NULL, NULL,
 NULL, NULL,
 NULL, NULL, NULL, NULL, NULL, NULL, NULL,
 NULL, NULL, NULL, NULL,
 NULL);`)
}

// startPGSource creates a connection and a source in streamdb for the
// upstream database, and waits until the source runs.
func startPGSource(c *client, u *upstream, create string) {
	c.t.Helper()
	c.exec(u.connectionSQL("pg"))
	c.exec(create)
	waitRunning(c, strings.Fields(create)[2])
}

// waitRunning waits until SHOW SOURCES says a source runs.
func waitRunning(c *client, source string) {
	c.t.Helper()
	c.waitFor(fmt.Sprintf(`SHOW SOURCES WHERE name = '%s'`, source), source+" to run", func(got string) bool {
		return strings.HasPrefix(got, source+"|postgres|running|")
	})
}

// TestPostgresAllTypes replicates a table with a column of every type
// streamdb has through the snapshot and then through the stream, and
// checks after each that the subsource and a view over it read exactly
// what upstream's table reads, and that the subsource has upstream's
// column types, NOT NULL and primary key.
func TestPostgresAllTypes(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(pgAllTypes + pgAllTypesRows(0))
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(`SET TIME ZONE 'UTC'`)
	startPGSource(c, u, `CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub', TEXT COLUMNS (all_types.pt)) FOR ALL TABLES`)
	c.exec(`CREATE MATERIALIZED VIEW all_mv AS SELECT * FROM all_types`)
	const q = `SELECT * FROM all_types ORDER BY id`
	sameAsUpstream(c, u, q)
	c.waitRows(`SELECT * FROM all_mv ORDER BY id`, u.rows(q))

	const columns = `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		WHERE c.relname = 'all_types' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`
	upstreamCols := strings.NewReplacer("|mood|", "|text|", "|posint|", "|integer|", "|mood[]|", "|text[]|", "|point|", "|text|").Replace(u.rows(columns))
	if got := c.rows(columns); got != upstreamCols {
		t.Errorf("columns of all_types:\n%s\nupstream (enums as text, domains as their base type):\n%s", got, upstreamCols)
	}
	const pk = `SELECT a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
		WHERE c.relname = 'all_types' AND i.indisprimary`
	if got, want := c.rows(pk), u.rows(pk); got != want {
		t.Errorf("primary key of all_types: %s, upstream %s", got, want)
	}

	u.exec(pgAllTypesRows(10) + `
		UPDATE all_types SET t = t || '!', jb = jb || '{"z": 1}', am = am || 'ok'::mood, tz = tz + interval '1 hour' WHERE id IN (1, 12);
		DELETE FROM all_types WHERE id IN (2, 13);`)
	sameAsUpstream(c, u, q)
	c.waitRows(`SELECT * FROM all_mv ORDER BY id`, u.rows(q))
	if got := c.rows(`SELECT count(*) FROM app_errors`); got != "0" {
		t.Errorf("%s dead letters", got)
	}
}

// TestPostgresTransactionsAtomic writes upstream transactions that move
// amounts between two tables, of one row to thousands, and follows a
// view of the imbalance with SUBSCRIBE: every state it shows is balanced,
// so no tick ever held part of an upstream transaction.
func TestPostgresTransactionsAtomic(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE debits (id int PRIMARY KEY, amount int8 NOT NULL);
		CREATE TABLE credits (id int PRIMARY KEY, amount int8 NOT NULL);
		CREATE PUBLICATION pub FOR ALL TABLES`)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	startPGSource(c, u, `CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
	c.exec(`CREATE MATERIALIZED VIEW imbalance AS
		SELECT coalesce(sum(x), 0)::int8 AS diff, count(*) AS n FROM (SELECT amount AS x FROM debits UNION ALL SELECT -amount FROM credits) u`)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reader := connect(t, srv.URL)
	rs, err := reader.conn.Query(ctx, `SUBSCRIBE imbalance`)
	if err != nil {
		t.Fatal(err)
	}
	// A subscription never ends by itself: cancel it before closing.
	defer rs.Close()
	defer cancel()

	const txns = 40
	writer := pgConnect(t, u.c, u.db)
	defer writer.Close(context.Background())
	written := make(chan struct{})
	go func() {
		defer close(written)
		id := 0
		for i := range txns {
			n := 1 + i*i*3 // up to ~4,700 rows a transaction
			var b strings.Builder
			b.WriteString("BEGIN;")
			fmt.Fprintf(&b, "INSERT INTO debits SELECT g, g %% 97 FROM generate_series(%d, %d) g;", id, id+n-1)
			fmt.Fprintf(&b, "INSERT INTO credits SELECT g, g %% 97 FROM generate_series(%d, %d) g;", id, id+n-1)
			if i%3 == 2 {
				// Updates and deletes across both tables, balanced.
				fmt.Fprintf(&b, "UPDATE debits SET amount = amount + 1 WHERE id %% 5 = 0 AND id < %d;", id)
				fmt.Fprintf(&b, "UPDATE credits SET amount = amount + 1 WHERE id %% 5 = 0 AND id < %d;", id)
				fmt.Fprintf(&b, "DELETE FROM debits WHERE id %% 7 = 1 AND id < %d;", id)
				fmt.Fprintf(&b, "DELETE FROM credits WHERE id %% 7 = 1 AND id < %d;", id)
			}
			b.WriteString("COMMIT;")
			if _, err := writer.PgConn().Exec(ctx, b.String()).ReadAll(); err != nil {
				t.Errorf("upstream transaction %d: %v", i, err)
				return
			}
			id += n
		}
	}()
	// The states the subscription shows: each row inserted (diff +1) is
	// the view's new content.
	type state struct{ diff, n string }
	shown := make(chan state)
	go func() {
		defer close(shown)
		for rs.Next() {
			vals, err := rs.Values()
			if err != nil || fmt.Sprint(vals[1]) != "1" {
				continue
			}
			select {
			case shown <- state{fmt.Sprint(vals[2]), fmt.Sprint(vals[3])}:
			case <-ctx.Done():
				return
			}
		}
	}()
	want := "" // the rows upstream has once every transaction committed
	states, final := 0, ""
	for final == "" || final != want {
		select {
		case st, ok := <-shown:
			if !ok {
				t.Fatalf("the subscription ended at %s rows (upstream has %s): %v", final, want, rs.Err())
			}
			states++
			if st.diff != "0" {
				t.Fatalf("SUBSCRIBE showed an imbalance of %s with %s rows: a tick held part of an upstream transaction", st.diff, st.n)
			}
			final = st.n
		case <-written:
			written = nil
			want = u.rows(`SELECT (SELECT count(*) FROM debits) + (SELECT count(*) FROM credits)`)
		}
	}
	t.Logf("%d balanced states seen", states)
}

// TestPostgresSchemaChanges adds a column upstream: the subsource gains
// it with the value existing rows have upstream, a view over the
// subsource's SELECT * keeps its columns (before and after a restart)
// while a view created afterwards sees the new one. A dropped column
// stalls only its table, with a message saying how to recover, and
// DROP SUBSOURCE then ADD SUBSOURCE replicates the table afresh.
func TestPostgresSchemaChanges(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL);
		CREATE TABLE other (id int PRIMARY KEY, v int);
		INSERT INTO items VALUES (1, 'one'), (2, 'two'); INSERT INTO other VALUES (1, 1);
		CREATE PUBLICATION pub FOR ALL TABLES`)
	dir := t.TempDir()
	srv := startServer(t, dir)
	c := connect(t, srv.URL)
	startPGSource(c, u, `CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
	c.exec(`CREATE VIEW items_all AS SELECT * FROM items`)
	c.exec(`CREATE MATERIALIZED VIEW items_mv AS SELECT * FROM items`)
	c.exec(`CREATE MATERIALIZED VIEW names AS SELECT name, count(*) AS n FROM items GROUP BY name`)
	sameAsUpstream(c, u, `SELECT * FROM items ORDER BY id`)

	u.exec(`ALTER TABLE items ADD COLUMN price numeric(8,2) NOT NULL DEFAULT 9.99;
		INSERT INTO items VALUES (3, 'three', 3.50); UPDATE items SET price = 1 WHERE id = 1`)
	sameAsUpstream(c, u, `SELECT * FROM items ORDER BY id`)
	const before = `SELECT id, name FROM items ORDER BY id`
	c.waitRows(`SELECT * FROM items_all ORDER BY id`, u.rows(before))
	c.waitRows(`SELECT * FROM items_mv ORDER BY id`, u.rows(before))
	sameAsUpstream(c, u, `SELECT name, count(*) AS n FROM items GROUP BY name ORDER BY name`)
	c.exec(`CREATE MATERIALIZED VIEW items_wide AS SELECT * FROM items`)
	c.waitRows(`SELECT * FROM items_wide ORDER BY id`, u.rows(`SELECT * FROM items ORDER BY id`))
	if got := c.rows(`SELECT attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE relname = 'items' AND attnum > 0 ORDER BY attnum`); got != "id\nname\nprice" {
		t.Errorf("columns of items: %s", got)
	}

	srv.Stop()
	srv = startServer(t, dir)
	c = connect(t, srv.URL)
	waitRunning(c, "app")
	u.exec(`INSERT INTO items VALUES (4, 'four', 4)`)
	sameAsUpstream(c, u, `SELECT * FROM items ORDER BY id`)
	c.waitRows(`SELECT * FROM items_all ORDER BY id`, u.rows(before))
	c.waitRows(`SELECT * FROM items_mv ORDER BY id`, u.rows(before))
	c.waitRows(`SELECT * FROM items_wide ORDER BY id`, u.rows(`SELECT * FROM items ORDER BY id`))

	u.exec(`ALTER TABLE items DROP COLUMN name; INSERT INTO items VALUES (5, 5); INSERT INTO other VALUES (2, 2)`)
	status := c.waitFor(`SHOW SOURCES WHERE name = 'items'`, "items to stall", func(got string) bool {
		return strings.HasPrefix(got, "items|subsource|stalled: ")
	})
	if !strings.Contains(status, `column "name"`) || !strings.Contains(status, "DROP SUBSOURCE items") || !strings.Contains(status, "ADD SUBSOURCE public.items") {
		t.Errorf("the stall does not say what happened and what to do: %s", status)
	}
	sameAsUpstream(c, u, `SELECT * FROM other ORDER BY id`)
	if got := c.rows(`SELECT count(*) FROM items`); got != "4" {
		t.Errorf("the stalled subsource holds %s rows, want the 4 it had", got)
	}

	if err := c.try(`ALTER SOURCE app DROP SUBSOURCE items`); err == nil || !strings.Contains(err.Error(), "2BP01") {
		t.Errorf("DROP SUBSOURCE of a subsource views read: %v", err)
	}
	c.exec(`ALTER SOURCE app DROP SUBSOURCE items CASCADE`)
	c.exec(`ALTER SOURCE app ADD SUBSOURCE public.items`)
	sameAsUpstream(c, u, `SELECT * FROM items ORDER BY id`)
	u.exec(`INSERT INTO items VALUES (6, 6); INSERT INTO other VALUES (3, 3)`)
	sameAsUpstream(c, u, `SELECT * FROM items ORDER BY id`)
	sameAsUpstream(c, u, `SELECT * FROM other ORDER BY id`)
	if got := c.rows(`SHOW SOURCES WHERE name = 'items'`); !strings.HasPrefix(got, "items|subsource|running") {
		t.Errorf("items after ADD SUBSOURCE: %s", got)
	}
}

// TestPostgresSlotDropped drops the source's slot upstream while the
// source runs: the source stalls saying the changes since are lost and
// what to do, rather than resnapshot or skip them; DROP SOURCE then
// goes, and a new source replicates afresh and drops its slot on DROP.
func TestPostgresSlotDropped(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1); CREATE PUBLICATION pub FOR ALL TABLES`)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	startPGSource(c, u, `CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
	sameAsUpstream(c, u, `SELECT * FROM t`)
	slot := u.slots()
	if !strings.HasPrefix(slot, "streamdb_app_") {
		t.Fatalf("upstream slots: %q", slot)
	}
	// The slot is in use: end its walsender and drop it before the
	// source reconnects.
	deadline := time.Now().Add(waitTimeout)
	for {
		_, err := u.conn.Exec(context.Background(), `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL;
			`, slot)
		if err == nil {
			if _, err = u.conn.Exec(context.Background(), `SELECT pg_drop_replication_slot($1)`, slot); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("could not drop the slot: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	u.exec(`INSERT INTO t VALUES (2)`)
	// The first stall is the connection ended; the next attempt finds
	// the slot gone.
	status := c.waitFor(`SHOW SOURCES WHERE name = 'app'`, "the source to stall", func(got string) bool {
		return strings.HasPrefix(got, "app|postgres|stalled: ") && strings.Contains(got, "slot")
	})
	if !strings.Contains(status, "no longer exists") || !strings.Contains(status, "DROP SOURCE") {
		t.Errorf("the stall does not say what was lost and what to do: %s", status)
	}
	if got := c.rows(`SELECT * FROM t`); got != "1" {
		t.Errorf("t = %s after the slot was dropped, want the row it had", got)
	}
	if got := u.slots(); got != "" {
		t.Errorf("the source created a slot again: %s", got)
	}
	c.exec(`DROP SOURCE app CASCADE`)
	c.exec(`CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
	sameAsUpstream(c, u, `SELECT * FROM t ORDER BY id`)
	if u.slots() == "" {
		t.Fatal("the new source has no slot")
	}
	c.exec(`DROP SOURCE app CASCADE`)
	if got := u.slots(); got != "" {
		t.Errorf("DROP SOURCE left the slot %s upstream", got)
	}
}
