package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/sources"
)

const ledgerSchema = `
CREATE TABLE acct (id int PRIMARY KEY, balance int8 NOT NULL, note text);
CREATE TABLE ledger (acct int, amount int8, seq int8);
ALTER TABLE ledger REPLICA IDENTITY FULL;
CREATE PUBLICATION pub FOR ALL TABLES;
INSERT INTO acct SELECT g, 0, NULL FROM generate_series(1, 50) g;
`

var ledgerQueries = map[string]string{"acct": "SELECT * FROM acct", "ledger": "SELECT * FROM ledger"}

// writer runs small upstream transactions until stopped: each moves money
// between accounts and appends to the ledger (a table without a key, so
// that a transaction applied twice shows as duplicate rows), and now and
// then deletes or rewrites old ledger rows.
type writer struct {
	stop chan struct{}
	wg   sync.WaitGroup
	n    atomic.Int64
	err  error
}

func startWriter(t testing.TB, u *upstream) *writer {
	t.Helper()
	return startWriterFunc(t, u, ledgerTx)
}

// startLateWriter writes to table late: inserts, updates and deletes.
func startLateWriter(t testing.TB, u *upstream) *writer {
	t.Helper()
	return startWriterFunc(t, u, func(conn *pgx.Conn, i int64) error {
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(`INSERT INTO late VALUES (1000 + $1, 'new')`, i)
		b.Queue(`UPDATE late SET v = v || '+' WHERE seq = $1`, i)
		b.Queue(`DELETE FROM late WHERE seq = $1 + 250`, i)
		b.Queue(`COMMIT`)
		return conn.SendBatch(context.Background(), b).Close()
	})
}

// startWriterFunc runs tx(conn, 1), tx(conn, 2), … until halted.
func startWriterFunc(t testing.TB, u *upstream, tx func(conn *pgx.Conn, i int64) error) *writer {
	t.Helper()
	conn := connect(t, u.c, u.db)
	w := &writer{stop: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer conn.Close(context.Background())
		for i := int64(1); ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			if err := tx(conn, i); err != nil {
				w.err = err
				return
			}
			w.n.Add(1)
		}
	}()
	return w
}

// ledgerTx is one transaction of the ledger workload.
func ledgerTx(conn *pgx.Conn, i int64) error {
	ctx := context.Background()
	from, to := i%50+1, (i*7)%50+1
	batch := &pgx.Batch{}
	batch.Queue(`BEGIN`)
	batch.Queue(`UPDATE acct SET balance = balance - $1 WHERE id = $2`, i, from)
	batch.Queue(`UPDATE acct SET balance = balance + $1, note = $3 WHERE id = $2`, i, to, fmt.Sprintf("tx %d", i))
	batch.Queue(`INSERT INTO ledger VALUES ($1, $2, $3), ($4, $5, $3)`, from, -i, i, to, i)
	switch i % 10 {
	case 3:
		batch.Queue(`DELETE FROM ledger WHERE seq = $1`, i-2)
	case 7:
		batch.Queue(`UPDATE ledger SET amount = amount * 2 WHERE seq = $1`, i-3)
	}
	batch.Queue(`COMMIT`)
	return conn.SendBatch(ctx, batch).Close()
}

func (w *writer) halt(t testing.TB) {
	t.Helper()
	close(w.stop)
	w.wg.Wait()
	if w.err != nil {
		t.Fatalf("writer: %v", w.err)
	}
}

// TestResume stops and restarts the source repeatedly while upstream
// keeps writing: each restart resumes from the position the model
// committed, and in the end the model equals upstream — nothing lost,
// nothing applied twice.
func TestResume(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(ledgerSchema)
	cfg := u.config("resume", "pub")
	src := open(t, cfg)
	m := newModel(src.Outputs())
	w := startWriter(t, u)
	for round := range 4 {
		src, err := Open(cfg, src.Tables())
		if err != nil {
			t.Fatal(err)
		}
		r := start(t, src, m, m.committed())
		before := w.n.Load()
		m.waitFor(t, 30*time.Second, "streaming", func() bool { return m.state == sources.Running })
		for w.n.Load() < before+30 {
			time.Sleep(10 * time.Millisecond)
		}
		if err := r.stop(); err != nil {
			t.Fatalf("round %d: Run: %v", round, err)
		}
		// Upstream writes on while the source is down.
		time.Sleep(50 * time.Millisecond)
	}
	w.halt(t)
	start(t, src, m, m.committed())
	waitEqual(t, m, u, ledgerQueries)
	t.Logf("%d upstream transactions over %d batches", w.n.Load(), len(m.batches))
}

// errCrash is what the model's Emit fails with when a test kills the
// engine before it commits a batch.
var errCrash = errors.New("engine crashed before committing")

// TestCrash kills the engine (its Emit fails without applying the batch)
// at chosen batches while upstream keeps writing, and restarts from what
// was committed: the source must deliver the lost batch's transactions
// again, once.
func TestCrash(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(ledgerSchema)
	cfg := u.config("crash", "pub")
	src := open(t, cfg)
	m := newModel(src.Outputs())
	w := startWriter(t, u)
	for round := range 4 {
		var emits atomic.Int64
		crashAt := int64(3 + round*2)
		m.mu.Lock()
		m.fail = func(*sources.Batch) error {
			if emits.Add(1) == crashAt {
				return errCrash
			}
			return nil
		}
		m.mu.Unlock()
		src, err := Open(cfg, src.Tables())
		if err != nil {
			t.Fatal(err)
		}
		r := start(t, src, m, m.committed())
		if err := r.wait(t, 60*time.Second); !errors.Is(err, errCrash) {
			t.Fatalf("round %d: Run returned %v, want the crash", round, err)
		}
	}
	m.mu.Lock()
	m.fail = nil
	m.mu.Unlock()
	w.halt(t)
	start(t, src, m, m.committed())
	waitEqual(t, m, u, ledgerQueries)
}

// TestCrashDuringSnapshot kills the engine in the middle of the first
// snapshot, then before its first batch commits at all: each restart
// reads the tables again from a fresh snapshot, truncating what an
// interrupted one left, and streams on without a gap.
func TestCrashDuringSnapshot(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(ledgerSchema, `INSERT INTO ledger SELECT g % 50, g, g FROM generate_series(1, 2000) g`)
	cfg := u.config("crashsnap", "pub")
	cfg.SnapshotBatchRows = 100
	src := open(t, cfg)
	m := newModel(src.Outputs())
	w := startWriter(t, u)
	for _, crashAt := range []int64{5, 1} {
		var emits atomic.Int64
		m.mu.Lock()
		m.fail = func(*sources.Batch) error {
			if emits.Add(1) == crashAt {
				return errCrash
			}
			return nil
		}
		m.mu.Unlock()
		src, err := Open(cfg, src.Tables())
		if err != nil {
			t.Fatal(err)
		}
		r := start(t, src, m, m.committed())
		if err := r.wait(t, 60*time.Second); !errors.Is(err, errCrash) {
			t.Fatalf("Run returned %v, want the crash", err)
		}
	}
	if len(m.committed()) == 0 {
		t.Fatal("nothing committed before the second crash")
	}
	m.mu.Lock()
	m.fail = nil
	m.mu.Unlock()
	start(t, src, m, m.committed())
	time.Sleep(200 * time.Millisecond)
	w.halt(t)
	waitEqual(t, m, u, ledgerQueries)

	// A first start that dies before its first commit leaves a slot and
	// no position: the next start replaces the slot.
	u2 := newUpstream(t, nil)
	u2.exec(ledgerSchema)
	cfg2 := u2.config("crashfirst", "pub")
	src2 := open(t, cfg2)
	m2 := newModel(src2.Outputs())
	m2.fail = func(*sources.Batch) error { return errCrash }
	if err := start(t, src2, m2, nil).wait(t, 60*time.Second); !errors.Is(err, errCrash) {
		t.Fatalf("Run returned %v, want the crash", err)
	}
	if !u2.slotExists("crashfirst") {
		t.Fatal("no slot after the first start")
	}
	m2.fail = nil
	u2.exec(`INSERT INTO ledger VALUES (1, 1, 1)`)
	start(t, src2, m2, nil)
	waitEqual(t, m2, u2, ledgerQueries)
}
