package oracle

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// conn is one connection to streamdb or PostgreSQL. It uses pgconn, pgx's
// wire-level layer: results arrive as the server's text, which is exactly
// what the comparison needs, and nothing is decoded only to be printed
// again.
type conn struct {
	pg      *pgconn.PgConn
	timeout time.Duration
}

func dial(ctx context.Context, url string, timeout time.Duration) (*conn, error) {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.ConnectTimeout = 10 * time.Second
	pg, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &conn{pg: pg, timeout: timeout}, nil
}

func (c *conn) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.pg.Close(ctx)
}

// errTimeout reports a statement that did not finish within the
// connection's timeout: an engine that hangs is a failure, not a wait.
var errTimeout = errors.New("statement timed out")

// run executes one statement with the extended protocol and returns its
// rows, or the server's error inside the result. The error return is for
// everything else: a lost connection (a crashed server) or a timeout.
func (c *conn) run(ctx context.Context, sql string) (*result, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	rr := c.pg.ExecParams(ctx, sql, nil, nil, nil, nil)
	res := &result{}
	for _, fd := range rr.FieldDescriptions() {
		res.oids = append(res.oids, fd.DataTypeOID)
	}
	for rr.NextRow() {
		vals := rr.Values()
		row := make([]*string, len(vals))
		for i, v := range vals {
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		res.rows = append(res.rows, row)
	}
	_, err := rr.Close()
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &pgErr):
		return &result{code: pgErr.Code, msg: pgErr.Message}, nil
	case ctx.Err() != nil:
		return nil, errTimeout
	}
	return nil, err
}
