package compat

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// slowQuery runs for many seconds unless cancelled.
const slowQuery = "SELECT count(*) FROM generate_series(1, 3000) a, generate_series(1, 3000) b"

// TestPgx exercises pgx v5: the default extended protocol with binary
// results, the simple protocol, batches, CopyFrom, errors and cancel.
func TestPgx(t *testing.T) {
	srv := startServer(t, false)
	ctx := context.Background()
	// sslmode=prefer (pgx's default) against a server without TLS: the
	// SSLRequest is refused and pgx goes on in plaintext.
	conn := connect(t, srv.url("sslmode=prefer"))
	mustExec(t, conn, schema...)
	mustExec(t, conn, allTypes, allTypesInsert)

	t.Run("parameterised writes", func(t *testing.T) {
		for i, c := range []string{"ada", "bob", "ada"} {
			if _, err := conn.Exec(ctx, "INSERT INTO orders (id, customer, amount, placed) VALUES ($1, $2, $3, $4)",
				i+1, c, pgtype.Numeric{Int: big.NewInt(int64(1000 * (i + 1))), Exp: -1, Valid: true}, time.Date(2024, 1, i+1, 0, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
		}
		var total string
		if err := conn.QueryRow(ctx, "SELECT total::text FROM spend WHERE customer = $1", "ada").Scan(&total); err != nil || total != "400.00" {
			t.Errorf("spend for ada: %q %v", total, err)
		}
	})

	t.Run("every type, simple protocol (text)", func(t *testing.T) {
		rows, err := conn.Query(ctx, "SELECT * FROM all_types", pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var parts []string
			for _, raw := range rows.RawValues() {
				parts = append(parts, string(raw))
			}
			if got := strings.Join(parts, "|"); got != allTypesText {
				t.Errorf("text row:\n got %s\nwant %s", got, allTypesText)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("every type, extended protocol (binary)", func(t *testing.T) {
		var (
			b      bool
			i2     int16
			i4     int32
			i8     int64
			f4     float32
			f8     float64
			num    pgtype.Numeric
			tx, vc string
			ch     string
			by     []byte
			d, ts  time.Time
			tm     pgtype.Time
			tstz   time.Time
			iv     pgtype.Interval
			u      pgtype.UUID
			j, jb  map[string]any
			o      uint32
			ai     []int32
			at     []string
		)
		err := conn.QueryRow(ctx, "SELECT * FROM all_types").Scan(&b, &i2, &i4, &i8, &f4, &f8, &num, &tx, &vc, &ch, &by, &d, &tm, &ts, &tstz, &iv, &u, &j, &jb, &o, &ai, &at)
		if err != nil {
			t.Fatal(err)
		}
		numText, _ := num.Value()
		got := fmt.Sprintln(b, i2, i4, i8, f4, f8, numText, tx, vc, ch, fmt.Sprintf("%x", by), d.Format("2006-01-02"), tm.Microseconds,
			ts.Format(time.RFC3339Nano), tstz.UTC().Format(time.RFC3339Nano), iv.Months, iv.Days, iv.Microseconds, fmt.Sprintf("%x", u.Bytes), j, jb, o, ai, at)
		got = strings.TrimSuffix(got, "\n")
		want := "true 2 4 8 1.5 2.25 1234.567 text varchar ch  deadbeef 2024-02-29 45296789000 2024-02-29T12:34:56.789Z 2024-02-29T12:34:56.789Z 14 3 14706000000 a0eebc999c0b4ef8bb6d6bb9bd380a11 map[a:1] map[b:[1 2]] 42 [1 2 3] [x y z]"
		if got != want {
			t.Errorf("binary row:\n got %s\nwant %s", got, want)
		}
	})

	t.Run("batch", func(t *testing.T) {
		b := &pgx.Batch{}
		b.Queue("INSERT INTO orders (id, customer, amount) VALUES ($1, $2, $3)", 10, "cy", 5)
		b.Queue("UPDATE orders SET amount = amount + $1 WHERE id = $2", 1, 10)
		b.Queue("SELECT amount::text FROM orders WHERE id = $1", 10)
		br := conn.SendBatch(ctx, b)
		for i := 0; i < 2; i++ {
			if _, err := br.Exec(); err != nil {
				t.Fatal(err)
			}
		}
		var amount string
		if err := br.QueryRow().Scan(&amount); err != nil || amount != "6.00" {
			t.Errorf("batch read: %q %v", amount, err)
		}
		if err := br.Close(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("CopyFrom", func(t *testing.T) {
		var rows [][]any
		for i := 0; i < 1000; i++ {
			rows = append(rows, []any{100 + i, fmt.Sprintf("c%d", i%7), pgtype.Numeric{Int: big.NewInt(int64(i)), Valid: true}, time.Unix(int64(i), 0)})
		}
		n, err := conn.CopyFrom(ctx, pgx.Identifier{"orders"}, []string{"id", "customer", "amount", "placed"}, pgx.CopyFromRows(rows))
		if err != nil || n != 1000 {
			t.Fatalf("CopyFrom: %d %v", n, err)
		}
		var count int64
		if err := conn.QueryRow(ctx, "SELECT sum(n) FROM spend").Scan(&count); err != nil || count != 1004 {
			t.Errorf("rows after CopyFrom: %d %v", count, err)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tt := range []struct{ sql, code string }{
			{"INSERT INTO orders (id, customer) VALUES (1, 'dup')", "23505"},
			{"SELECT * FROM nope", "42P01"},
			{"SELECT 1/0", "22012"},
			{"SELEC 1", "42601"},
			{"INSERT INTO orders (id) VALUES (99)", "23502"},
			{"SELECT 'x'::int", "22P02"},
			{"INSERT INTO spend VALUES ('x', 1, 1)", "42809"},
		} {
			_, err := conn.Exec(ctx, tt.sql)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != tt.code {
				t.Errorf("%s: %v, want %s", tt.sql, err, tt.code)
			}
		}
	})

	t.Run("cancel", func(t *testing.T) {
		c2 := connect(t, srv.url("sslmode=disable"))
		errc := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := c2.Exec(ctx, slowQuery)
			errc <- err
		}()
		time.Sleep(300 * time.Millisecond)
		if err := c2.PgConn().CancelRequest(ctx); err != nil {
			t.Fatal(err)
		}
		err := <-errc
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" {
			t.Fatalf("cancelled query: %v", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("cancel took %v", d)
		}
		var one int
		if err := c2.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("connection after cancel: %v", err)
		}
	})
}

// TestPgxSubscribe reads a subscription as Materialize documents it for
// Go: DECLARE … CURSOR FOR SUBSCRIBE in a transaction and FETCH … WITH
// (timeout) through the extended protocol with binary results, while
// another connection writes.
func TestPgxSubscribe(t *testing.T) {
	srv := startServer(t, false)
	ctx := context.Background()
	writer := connect(t, srv.url("sslmode=disable"))
	mustExec(t, writer, "CREATE TABLE gsub (id int PRIMARY KEY, v text)", "INSERT INTO gsub VALUES (1, 'a')")
	conn := connect(t, srv.url("sslmode=disable"))
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "DECLARE c CURSOR FOR SUBSCRIBE gsub"); err != nil {
		t.Fatal(err)
	}
	fetch := func() ([]string, []int64) {
		t.Helper()
		rows, err := tx.Query(ctx, "FETCH ALL c WITH (timeout = '5s')")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		var times []int64
		for rows.Next() {
			var ts int64 // mz_timestamp, a numeric
			var diff int64
			var id int32
			var v string
			if err := rows.Scan(&ts, &diff, &id, &v); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d %d %s", diff, id, v))
			times = append(times, ts)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return got, times
	}
	snap, t0 := fetch()
	if strings.Join(snap, ";") != "1 1 a" {
		t.Fatalf("snapshot: %q", snap)
	}
	mustExec(t, writer, "UPDATE gsub SET v = 'b' WHERE id = 1")
	upd, t1 := fetch()
	if strings.Join(upd, ";") != "-1 1 a;1 1 b" || t1[0] <= t0[0] {
		t.Fatalf("update: %q at %v after %v", upd, t1, t0)
	}
	start := time.Now()
	rows, err := tx.Query(ctx, "FETCH ALL c WITH (timeout = '200ms')")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if rows.Err() != nil || n != 0 || time.Since(start) > 5*time.Second {
		t.Fatalf("idle FETCH: %d rows, %v, in %v", n, rows.Err(), time.Since(start))
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestPgxTLS checks sslmode=require and prefer against a TLS server, and
// verify-full with the server's self-signed certificate as the root, the
// README's advice for Grafana.
func TestPgxTLS(t *testing.T) {
	srv := startServer(t, true)
	root := filepath.Join(t.TempDir(), "server.crt")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.tls.Certificates[0].Certificate[0]})
	if err := os.WriteFile(root, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"require", "prefer", "verify-full&sslrootcert=" + root} {
		conn := connect(t, srv.url("sslmode="+mode))
		if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
			t.Errorf("sslmode=%s: connection is not TLS", mode)
		}
		var ok int
		if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&ok); err != nil {
			t.Fatalf("sslmode=%s: %v", mode, err)
		}
	}
}
