package pgtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Connect opens a connection to database db as the superuser, with the
// given run-time parameters (timezone, say); it fails the test on error.
func (c *Cluster) Connect(tb testing.TB, db string, params map[string]string) *pgx.Conn {
	tb.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, db))
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range params {
		cfg.RuntimeParams[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return conn
}

// CreateDatabase creates database name, for a test of its own on a
// cluster that tests share.
func (c *Cluster) CreateDatabase(tb testing.TB, name string) {
	tb.Helper()
	admin := c.Connect(tb, "postgres", nil)
	defer admin.Close(context.Background())
	if _, err := admin.Exec(context.Background(), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatal(err)
	}
}
