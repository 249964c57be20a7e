package postgres

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
)

// waitStalled waits until output name's table stalls and returns why.
func waitStalled(t *testing.T, src *Source, name string) string {
	t.Helper()
	i := outputIndex(src.Outputs(), name)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if why := src.Status().Tables[i].Stalled; why != "" {
			return why
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s did not stall: %+v", name, src.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAddColumn adds columns upstream while streaming — with a constant
// default the existing rows take, without one, and inside a transaction
// that wrote rows before and after — and checks the outputs gain them.
// A column added with a volatile default (a table rewrite replication
// does not carry) stalls the table instead.
func TestAddColumn(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE items (id int PRIMARY KEY, name text)`, `CREATE TABLE events (v int)`,
		`ALTER TABLE events REPLICA IDENTITY FULL`, `CREATE TABLE other (id int PRIMARY KEY)`,
		`CREATE PUBLICATION pub FOR ALL TABLES`,
		`INSERT INTO items VALUES (1, 'one'), (2, 'two')`, `INSERT INTO events VALUES (1), (1), (2)`)
	src := open(t, u.config("addcol", "pub"))
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	q := map[string]string{"items": "SELECT * FROM items", "events": "SELECT * FROM events", "other": "SELECT * FROM other"}
	waitEqual(t, m, u, q)

	u.exec(`ALTER TABLE items ADD COLUMN price numeric(8,2) NOT NULL DEFAULT 9.99`,
		`INSERT INTO items VALUES (3, 'three', 1.5)`,
		`ALTER TABLE items ADD COLUMN tags text[]`,
		`UPDATE items SET tags = '{a,b}' WHERE id = 1`,
		`BEGIN; INSERT INTO events VALUES (3); ALTER TABLE events ADD COLUMN at date DEFAULT '2024-01-01'; INSERT INTO events VALUES (4, '2025-05-05'); UPDATE events SET v = 10 WHERE v = 1; COMMIT`)
	waitEqual(t, m, u, q)
	// A type created in the transaction that adds a column of it.
	u.exec(`BEGIN; CREATE TYPE color AS ENUM ('red', 'blue'); ALTER TABLE items ADD COLUMN hue color; INSERT INTO items VALUES (5, 'five', 5, NULL, 'blue'); COMMIT`)
	waitEqual(t, m, u, q)
	m.mu.Lock()
	cols := m.outputs[outputIndex(m.outputs, "items")].Columns
	m.mu.Unlock()
	if len(cols) != 5 || cols[4].Type.String() != "text" || cols[2].Name != "price" || cols[2].Type.String() != "numeric(8,2)" || !cols[2].NotNull || cols[3].Type.String() != "text[]" {
		t.Errorf("items columns %+v", cols)
	}

	u.exec(`ALTER TABLE items ADD COLUMN serial_no serial`, `INSERT INTO items (id, name) VALUES (4, 'four')`, `INSERT INTO other VALUES (1)`)
	why := waitStalled(t, src, "items")
	if !strings.Contains(why, "volatile default") || !strings.Contains(why, "DROP SUBSOURCE items") {
		t.Errorf("stall reason %q", why)
	}
	waitEqual(t, m, u, map[string]string{"other": "SELECT * FROM other"})
}

// TestDropColumn drops and retypes columns upstream: each stalls only its
// table, with the recovery in the message, and never delivers rows of the
// new layout into the old one.
func TestDropColumn(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE a (id int PRIMARY KEY, x int, y int)`, `CREATE TABLE b (id int PRIMARY KEY, z int)`,
		`CREATE TABLE c (id int PRIMARY KEY)`, `CREATE PUBLICATION pub FOR ALL TABLES`,
		`INSERT INTO a VALUES (1, 1, 1)`, `INSERT INTO b VALUES (1, 1)`)
	src := open(t, u.config("dropcol", "pub"))
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	waitEqual(t, m, u, map[string]string{"a": "SELECT * FROM a", "b": "SELECT * FROM b"})
	before := m.rows("a")

	u.exec(`ALTER TABLE a DROP COLUMN x`, `INSERT INTO a VALUES (2, 2)`,
		`ALTER TABLE b ALTER COLUMN z TYPE int8`, `INSERT INTO b VALUES (2, 2)`,
		`INSERT INTO c VALUES (1)`)
	for name, want := range map[string]string{"a": `column "x" of upstream table public.a was dropped or renamed`, "b": `column "z" of upstream table public.b changed type from integer to bigint`} {
		why := waitStalled(t, src, name)
		if !strings.Contains(why, want) || !strings.Contains(why, "ALTER SOURCE … DROP SUBSOURCE "+name+", then ADD SUBSOURCE public."+name) {
			t.Errorf("%s stalled: %q", name, why)
		}
	}
	waitEqual(t, m, u, map[string]string{"c": "SELECT * FROM c"})
	if got := m.rows("a"); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Errorf("stalled table a changed: %v, was %v", got, before)
	}
	m.checkAnomalies(t)
}

// TestDeadLetters feeds values streamdb cannot represent (a timestamp past
// its range, an array whose lower bound is not 1) through the snapshot and the
// stream: each becomes a dead letter naming table, column and key, the
// row stays out, and everything else flows on.
func TestDeadLetters(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE t (id int PRIMARY KEY, ts timestamp, a int[])`, `CREATE TABLE f (ts timestamp)`,
		`ALTER TABLE f REPLICA IDENTITY FULL`, `CREATE PUBLICATION pub FOR ALL TABLES`,
		`INSERT INTO t VALUES (1, '2024-01-01', '{1}'), (2, '294270-01-01', '{1}')`, `INSERT INTO f VALUES ('294270-01-01'), ('2000-01-01')`)
	src := open(t, u.config("dead", "pub"))
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	m.waitState(t, sources.Running)
	u.exec(`INSERT INTO t VALUES (3, '2024-01-01', '[0:1]={1,2}'), (4, '2024-01-01', '{4}')`,
		`UPDATE t SET ts = '294271-01-01' WHERE id = 1`,
		`UPDATE t SET ts = '2020-01-01' WHERE id = 2`,
		`UPDATE f SET ts = '1999-01-01' WHERE ts = '294270-01-01'`,
		`INSERT INTO f VALUES ('294272-01-01')`, `DELETE FROM f WHERE ts = '294272-01-01'`)
	// Row 1 went bad (deleted), row 2 was fixed (back), row 3 is bad,
	// row 4 is fine.
	waitEqual(t, m, u, map[string]string{
		"t": "SELECT * FROM t WHERE id IN (2, 4)",
		"f": "SELECT * FROM f WHERE ts < '294247-01-01'",
	})
	m.waitFor(t, 30*time.Second, "7 dead letters", func() bool { return len(m.dead) >= 7 })
	dead := m.deadLetters()
	var got []string
	for _, d := range dead {
		got = append(got, d.Partition+" "+string(d.Key)+": "+d.Err)
		if d.Offset <= 0 || d.Time.IsZero() {
			t.Errorf("dead letter %+v lacks its position or time", d)
		}
	}
	want := []string{
		`f : column "ts" of table public.f: timestamp out of range`,
		`t (2): column "ts" of table public.t: timestamp out of range`,
		`t (3): column "a" of table public.t: arrays with lower bounds other than 1 are not supported`,
		`t (1): column "ts" of table public.t: timestamp out of range: "294271-01-01 00:00:00"`,
		`f : column "ts" of table public.f: timestamp out of range: "294270-01-01 00:00:00"`,
		`f : column "ts" of table public.f: timestamp out of range: "294272-01-01 00:00:00"`,
		`f : column "ts" of table public.f: timestamp out of range: "294272-01-01 00:00:00"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("dead letters:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDropSlot drops the slot for DROP SOURCE, once Run has returned, and
// again without complaint.
func TestDropSlot(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE a (id int PRIMARY KEY)`, `CREATE PUBLICATION pub FOR ALL TABLES`)
	cfg := u.config("dropme", "pub")
	src := open(t, cfg)
	m := newModel(src.Outputs())
	r := start(t, src, m, nil)
	m.waitState(t, sources.Running)
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 2 {
		if err := DropSlot(ctx, cfg.Connection, cfg.Slot); err != nil {
			t.Fatal(err)
		}
		if u.slotExists("dropme") {
			t.Fatal("slot still exists")
		}
	}
}

// TestAddTable rebuilds a running source with one more table, as ALTER
// SOURCE … ADD SUBSOURCE does, while upstream writes to it: the new table
// is snapshotted through a temporary slot and joins the stream at the
// snapshot's point, without a gap or a duplicate.
func TestAddTable(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(ledgerSchema, `CREATE TABLE late (seq int8, v text)`, `ALTER TABLE late REPLICA IDENTITY FULL`,
		`INSERT INTO late SELECT g, 'old' FROM generate_series(1, 500) g`)
	cfg := u.config("addtable", "pub")
	cfg.AllTables, cfg.Tables = false, []TableRef{{Name: "acct"}, {Name: "ledger"}}
	src := open(t, cfg)
	m := newModel(src.Outputs())
	r := start(t, src, m, nil)
	w := startWriter(t, u)
	lateW := startLateWriter(t, u)
	time.Sleep(200 * time.Millisecond)
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	cfg.Tables = append(cfg.Tables, TableRef{Name: "late"})
	added, err := Discover(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	tables := append(src.Tables(), added[2])
	src2, err := Open(cfg, tables)
	if err != nil {
		t.Fatal(err)
	}
	m.addOutput(added[2].Output)
	start(t, src2, m, m.committed())
	time.Sleep(300 * time.Millisecond)
	w.halt(t)
	lateW.halt(t)
	q := map[string]string{"late": "SELECT * FROM late"}
	for k, v := range ledgerQueries {
		q[k] = v
	}
	waitEqual(t, m, u, q)
}

// TestAddColumnLostSession loses the batch that carries an ADD COLUMN
// (the upstream connection drops while the batch before it is being
// committed): the next session must announce the column again, or the
// rows that follow would be wider than the engine's relation.
func TestAddColumnLostSession(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE a (id int PRIMARY KEY, v int)`, `CREATE PUBLICATION pub FOR ALL TABLES`)
	src := open(t, u.config("addlost", "pub"))
	m := newModel(src.Outputs())
	gate := make(chan struct{})
	var held atomic.Bool
	armed := atomic.Bool{}
	m.hold = func() {
		if armed.Load() && held.CompareAndSwap(false, true) {
			<-gate
		}
	}
	start(t, src, m, nil)
	m.waitState(t, sources.Running)
	armed.Store(true)
	u.exec(`INSERT INTO a VALUES (1, 1)`)
	for !held.Load() {
		time.Sleep(5 * time.Millisecond)
	}
	// The insert's batch is held in Emit; the next transaction adds a
	// column and waits in the reader's batch.
	u.exec(`BEGIN; ALTER TABLE a ADD COLUMN c int DEFAULT 5; INSERT INTO a VALUES (2, 2, 7); COMMIT`)
	time.Sleep(300 * time.Millisecond)
	var killed bool
	if err := u.conn.QueryRow(context.Background(), `SELECT coalesce(bool_or(pg_terminate_backend(active_pid)), false) FROM pg_replication_slots WHERE slot_name = 'addlost'`).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed %v", killed)
	close(gate)
	waitEqual(t, m, u, map[string]string{"a": "SELECT * FROM a"})
	m.mu.Lock()
	n := len(m.outputs[0].Columns)
	m.mu.Unlock()
	if n != 3 {
		t.Errorf("output has %d columns, want 3", n)
	}
}
