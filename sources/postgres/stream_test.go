package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
)

// TestToast updates rows whose large values PostgreSQL stores out of line
// without touching those values: pgoutput then sends them as unchanged,
// and they must keep their values — from the engine's stored row under
// REPLICA IDENTITY DEFAULT (Change.Unchanged, with Change.OldKey when the
// key moves), from the old row pgoutput sends under FULL.
func TestToast(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE docs (id int PRIMARY KEY, title text, body text, tags text[])`,
		`ALTER TABLE docs ALTER body SET STORAGE EXTERNAL, ALTER tags SET STORAGE EXTERNAL`,
		`CREATE TABLE logs (n int, body text)`,
		`ALTER TABLE logs REPLICA IDENTITY FULL, ALTER body SET STORAGE EXTERNAL`,
		`CREATE TABLE blobs (k text PRIMARY KEY, v int)`,
		`ALTER TABLE blobs ALTER k SET STORAGE EXTERNAL`,
		`CREATE PUBLICATION pub FOR ALL TABLES`,
		`INSERT INTO docs SELECT i, 'title ' || i, repeat(md5(i::text), 300), ARRAY[repeat('x', 5000)] FROM generate_series(1, 3) i`,
		`INSERT INTO logs SELECT i, repeat(md5(i::text), 300) FROM generate_series(1, 3) i`)
	src := open(t, u.config("toast", "pub"))
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	q := map[string]string{"docs": "SELECT * FROM docs", "logs": "SELECT * FROM logs", "blobs": "SELECT * FROM blobs"}
	waitEqual(t, m, u, q)

	u.exec(`UPDATE docs SET title = 'new ' || id`,
		`UPDATE docs SET id = id + 10 WHERE id = 1`,
		`BEGIN; UPDATE docs SET title = 'again' WHERE id = 2; UPDATE docs SET id = 20 WHERE id = 2; COMMIT`,
		`UPDATE logs SET n = n * 100`,
		`INSERT INTO blobs VALUES (repeat(md5('k'), 78), 1)`,
		`UPDATE blobs SET v = 2`)
	waitEqual(t, m, u, q)

	var unchanged, moved int
	m.mu.Lock()
	for _, b := range m.batches {
		for _, c := range b.Changes[outputIndex(m.outputs, "docs")] {
			if len(c.Unchanged) > 0 {
				unchanged++
			}
			if c.OldKey != nil {
				moved++
			}
		}
	}
	m.mu.Unlock()
	if unchanged < 3 || moved != 2 {
		t.Errorf("%d changes with unchanged values and %d moving a row, want ≥ 3 and 2", unchanged, moved)
	}
}

// TestReplicaIdentity replicates tables under each replica identity that
// identifies rows — DEFAULT with a primary key, FULL without one (an
// append output whose duplicates count), USING INDEX — and refuses the
// ones that do not.
func TestReplicaIdentity(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE pk (id int PRIMARY KEY, v text)`,
		`CREATE TABLE full_dup (a int, b text)`,
		`ALTER TABLE full_dup REPLICA IDENTITY FULL`,
		`CREATE TABLE full_pk (id int PRIMARY KEY, v text)`,
		`ALTER TABLE full_pk REPLICA IDENTITY FULL`,
		`CREATE TABLE by_index (id int PRIMARY KEY, code text NOT NULL, v int)`,
		`CREATE UNIQUE INDEX by_index_code ON by_index (code)`,
		`ALTER TABLE by_index REPLICA IDENTITY USING INDEX by_index_code`,
		`CREATE PUBLICATION pub FOR TABLE pk, full_dup, full_pk, by_index`,
		`INSERT INTO pk VALUES (1, 'a'), (2, 'b')`,
		`INSERT INTO full_dup VALUES (1, 'x'), (1, 'x'), (2, NULL)`,
		`INSERT INTO full_pk VALUES (1, 'a')`,
		`INSERT INTO by_index VALUES (1, 'one', 1), (2, 'two', 2)`)
	src := open(t, u.config("identity", "pub"))
	outs := src.Outputs()
	if k := outs[outputIndex(outs, "by_index")].Key; len(k) != 1 || k[0] != 1 {
		t.Errorf("by_index keyed by %v, want its identity index [1]", k)
	}
	if o := outs[outputIndex(outs, "full_dup")]; o.Key != nil || !o.Retracts {
		t.Errorf("full_dup: key %v retracts %v, want an append output with retractions", o.Key, o.Retracts)
	}
	m := newModel(outs)
	start(t, src, m, nil)
	q := map[string]string{"pk": "SELECT * FROM pk", "full_dup": "SELECT * FROM full_dup", "full_pk": "SELECT * FROM full_pk", "by_index": "SELECT * FROM by_index"}
	waitEqual(t, m, u, q)
	u.exec(`UPDATE pk SET v = v || '!'`, `DELETE FROM pk WHERE id = 1`, `INSERT INTO pk VALUES (3, NULL)`,
		`UPDATE full_dup SET b = 'y' WHERE ctid = (SELECT min(ctid) FROM full_dup WHERE a = 1)`,
		`INSERT INTO full_dup VALUES (2, NULL)`, `DELETE FROM full_dup WHERE b IS NULL`, `INSERT INTO full_dup VALUES (1, 'x')`,
		`UPDATE full_pk SET id = 5, v = 'moved'`,
		`UPDATE by_index SET code = 'uno', v = 11 WHERE id = 1`, `DELETE FROM by_index WHERE code = 'two'`)
	waitEqual(t, m, u, q)

	u.exec(`CREATE TABLE nokey (a int)`, `CREATE TABLE nothing (a int PRIMARY KEY)`, `ALTER TABLE nothing REPLICA IDENTITY NOTHING`,
		`CREATE PUBLICATION pub2 FOR TABLE nokey`, `CREATE PUBLICATION pub3 FOR TABLE nothing`)
	for _, pub := range []string{"pub2", "pub3"} {
		_, err := Discover(context.Background(), u.config("identity2", pub))
		e := pgerr.As(err)
		if e == nil || e.Code != pgerr.ObjectNotInPrerequisiteState || !strings.Contains(e.Hint, "REPLICA IDENTITY FULL") {
			t.Errorf("%s: %#v", pub, err)
		}
	}
}

// TestTruncate truncates tables while streaming, alone and between
// inserts of one transaction.
func TestTruncate(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE a (id int PRIMARY KEY)`, `CREATE TABLE b (v int)`, `ALTER TABLE b REPLICA IDENTITY FULL`,
		`CREATE PUBLICATION pub FOR ALL TABLES`,
		`INSERT INTO a SELECT generate_series(1, 100)`, `INSERT INTO b SELECT generate_series(1, 100)`)
	src := open(t, u.config("truncate", "pub"))
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	q := map[string]string{"a": "SELECT * FROM a", "b": "SELECT * FROM b"}
	waitEqual(t, m, u, q)
	u.exec(`TRUNCATE a`)
	waitEqual(t, m, u, q)
	u.exec(`BEGIN; INSERT INTO a VALUES (1), (2); INSERT INTO b VALUES (7); TRUNCATE a, b; INSERT INTO a VALUES (3); INSERT INTO b VALUES (8); COMMIT`)
	waitEqual(t, m, u, q)
	if rows := m.rows("a"); len(rows) != 1 || rows[0] != "3" {
		t.Errorf("a holds %v after the transaction, want [3]", rows)
	}
}

// TestTransactionIsOneBatch checks that an upstream transaction spanning
// tables arrives whole in one batch, never split across batches even when
// it is larger than a batch's limit, so that no reader sees half of it.
func TestTransactionIsOneBatch(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE orders (id int PRIMARY KEY, tx int)`, `CREATE TABLE lines (id int PRIMARY KEY, tx int)`,
		`CREATE PUBLICATION pub FOR ALL TABLES`)
	cfg := u.config("onebatch", "pub")
	cfg.MaxBatchChanges = 50
	src := open(t, cfg)
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	m.waitState(t, sources.Running)
	for tx := 1; tx <= 20; tx++ {
		n := 1 + tx*7%40
		if tx == 10 {
			n = 500 // larger than MaxBatchChanges
		}
		u.exec(`BEGIN`,
			`INSERT INTO orders SELECT g, `+strconv.Itoa(tx)+` FROM generate_series(`+strconv.Itoa(tx*1000)+`, `+strconv.Itoa(tx*1000+n-1)+`) g`,
			`INSERT INTO lines SELECT g, `+strconv.Itoa(tx)+` FROM generate_series(`+strconv.Itoa(tx*1000)+`, `+strconv.Itoa(tx*1000+2*n-1)+`) g`,
			`COMMIT`)
	}
	waitEqual(t, m, u, map[string]string{"orders": "SELECT * FROM orders", "lines": "SELECT * FROM lines"})
	// Every transaction's changes must sit in exactly one batch.
	m.mu.Lock()
	defer m.mu.Unlock()
	batchOf := map[int64]int{}
	for bi, b := range m.batches {
		for _, changes := range b.Changes {
			for _, c := range changes {
				tx := c.Row[1].Int()
				if prev, ok := batchOf[tx]; ok && prev != bi {
					t.Fatalf("transaction %d is split across batches %d and %d", tx, prev, bi)
				}
				batchOf[tx] = bi
			}
		}
	}
	if len(batchOf) != 20 {
		t.Fatalf("saw %d transactions, want 20", len(batchOf))
	}
}

// TestPublicationFilters replicates through a publication with a column
// list and a row filter: the outputs have only the published columns,
// and the snapshot and the stream agree with the filter (an update that
// moves a row across it arrives as an insert or a delete).
func TestPublicationFilters(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE t (id int PRIMARY KEY, secret text, amount int)`,
		`CREATE PUBLICATION pub FOR TABLE t (id, amount) WHERE (id < 100)`,
		`INSERT INTO t VALUES (1, 's1', 10), (2, 's2', 20), (103, 's3', 30)`)
	src := open(t, u.config("filters", "pub"))
	var names []string
	for _, c := range src.Outputs()[0].Columns {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "id,amount" {
		t.Fatalf("columns %v", names)
	}
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	q := map[string]string{"t": "SELECT id, amount FROM t WHERE id < 100"}
	waitEqual(t, m, u, q)
	u.exec(`UPDATE t SET id = 3 WHERE id = 103`, `UPDATE t SET id = 101 WHERE id = 1`,
		`UPDATE t SET amount = amount + 1, secret = 'x'`, `INSERT INTO t VALUES (4, 's4', 40), (105, 's5', 50)`, `DELETE FROM t WHERE id = 2`)
	waitEqual(t, m, u, q)
}
