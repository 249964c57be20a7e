package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// waitTimeout bounds every wait for a source to converge. It is generous:
// the machine running the tests may be busy with other builds.
const waitTimeout = 60 * time.Second

// client is a pgx connection to a streamdb under test, with helpers that
// fail the test on errors.
type client struct {
	t    testing.TB
	conn *pgx.Conn
}

func connect(t testing.TB, url string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return &client{t: t, conn: conn}
}

// exec runs statements with the simple query protocol.
func (c *client) exec(sql string) {
	c.t.Helper()
	if err := c.try(sql); err != nil {
		c.t.Fatalf("%s: %v", sql, err)
	}
}

// try runs statements with the simple query protocol and returns the error.
func (c *client) try(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.conn.PgConn().Exec(ctx, sql).ReadAll()
	return err
}

// query returns a query's rows in PostgreSQL's text format, a row a line
// with values separated by "|" and NULL as "NULL".
func (c *client) query(sql string) (string, error) {
	return renderRows(c.conn, sql)
}

// rows is query failing the test on errors.
func (c *client) rows(sql string) string {
	c.t.Helper()
	out, err := c.query(sql)
	if err != nil {
		c.t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// waitRows waits until a query returns want, rendered as by query.
func (c *client) waitRows(sql, want string) {
	c.t.Helper()
	c.waitFor(sql, "\n"+want, func(got string) bool { return got == want })
}

// waitFor re-runs a query until ok accepts its result and returns that
// result; it fails the test with the last result (or error) after
// waitTimeout. Errors are retried too: a relation may not exist yet.
func (c *client) waitFor(sql, what string, ok func(string) bool) string {
	c.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	delay := 10 * time.Millisecond
	for {
		got, err := c.query(sql)
		if err == nil && ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			if err != nil {
				c.t.Fatalf("waiting for %s: %s: %v", what, sql, err)
			}
			c.t.Fatalf("waiting for %s: %s returned\n%s", what, sql, got)
		}
		time.Sleep(delay)
		delay = min(2*delay, 200*time.Millisecond)
	}
}
