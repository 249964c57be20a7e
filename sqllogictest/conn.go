package sqllogictest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// connectTimeout bounds establishing one connection.
const connectTimeout = 10 * time.Second

// session is the one connection a file runs on. It uses pgconn, pgx's
// wire-level layer, directly: results arrive as the server's text bytes,
// which is exactly what normalisation needs, and nothing is decoded into Go
// values only to be printed again.
type session struct {
	pg *pgconn.PgConn
	// simple switches statements and queries to the simple query protocol
	// ("mode simple"); the default extended protocol sends Parse, Bind,
	// Describe, Execute and Sync in one round trip.
	simple bool
}

// connect opens a session. A canceled record context sends a cancel request
// to the server instead of closing the connection, so a timed-out record
// does not cost the file its connection unless the server ignores the
// cancel for five seconds.
func connect(ctx context.Context, url string) (*session, error) {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.ConnectTimeout = connectTimeout
	cfg.BuildContextWatcherHandler = func(pg *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pg, DeadlineDelay: 5 * time.Second}
	}
	pg, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &session{pg: pg}, nil
}

func (s *session) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.pg.Close(ctx)
}

// broken reports whether the connection can no longer be used.
func (s *session) broken() bool { return s.pg.IsClosed() }

// exec runs one statement and returns its command tag.
func (s *session) exec(ctx context.Context, sql string) (pgconn.CommandTag, error) {
	if s.simple {
		res, err := s.pg.Exec(ctx, sql).ReadAll()
		if err != nil {
			return pgconn.CommandTag{}, err
		}
		if len(res) == 0 {
			return pgconn.CommandTag{}, nil
		}
		last := res[len(res)-1]
		return last.CommandTag, last.Err
	}
	_, tag, err := drain(s.pg.ExecParams(ctx, sql, nil, nil, nil, nil), "", nil)
	return tag, err
}

// query runs a query and normalises its rows into rs, one column per
// character of types.
func (s *session) query(ctx context.Context, sql, types string, rs *resultSet) error {
	rs.reset(len(types))
	if !s.simple {
		ncols, _, err := drain(s.pg.ExecParams(ctx, sql, nil, nil, nil, nil), types, rs)
		return columnCheck(ncols, types, err)
	}
	mrr := s.pg.Exec(ctx, sql)
	ncols, first := -1, true
	var err error
	for mrr.NextResult() {
		if first {
			ncols, _, err = drain(mrr.ResultReader(), types, rs)
			first = false
			continue
		}
		drain(mrr.ResultReader(), "", nil)
	}
	if cerr := mrr.Close(); err == nil {
		err = cerr
	}
	return columnCheck(ncols, types, err)
}

// errColumns marks a result whose column count differs from the record's
// type string.
var errColumns = errors.New("column count mismatch")

func columnCheck(ncols int, types string, err error) error {
	if err == nil && ncols != len(types) {
		return fmt.Errorf("%w: the query returned %d columns, the record declares %d (%q)", errColumns, ncols, len(types), types)
	}
	return err
}

// drain reads a result to its end. When rs is not nil and the column count
// equals len(types), every row is normalised into rs. It returns the
// result's column count.
func drain(rr *pgconn.ResultReader, types string, rs *resultSet) (int, pgconn.CommandTag, error) {
	fds := rr.FieldDescriptions()
	ncols := len(fds)
	if rs != nil && ncols == len(types) {
		for rr.NextRow() {
			for i, v := range rr.Values() {
				rs.values = append(rs.values, normalize(types[i], fds[i].DataTypeOID, v))
			}
		}
	}
	tag, err := rr.Close()
	return ncols, tag, err
}

// simpleOutput runs the text of a simple record with the simple query
// protocol and renders what the server sent: each row's values joined by
// ",", the command tag of each statement, and "ERROR <sqlstate>: <message>"
// for an error. The error return is reserved for connection failures.
func (s *session) simpleOutput(ctx context.Context, sql string) ([]string, bool, error) {
	var out []string
	mrr := s.pg.Exec(ctx, sql)
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		var sb strings.Builder
		for rr.NextRow() {
			sb.Reset()
			for i, v := range rr.Values() {
				if i > 0 {
					sb.WriteByte(',')
				}
				if v == nil {
					sb.WriteString("NULL")
				} else {
					sb.WriteString(normalizeText(v))
				}
			}
			out = append(out, sb.String())
		}
		if tag, err := rr.Close(); err == nil {
			out = append(out, tag.String())
		}
	}
	err := mrr.Close()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return append(out, "ERROR "+pgErr.Code+": "+pgErr.Message), false, nil
	}
	return out, err == nil, err
}

// sqlState returns the SQLSTATE of a server error, "" for other errors.
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// errorText renders an error as the runner reports it: a server error with
// its SQLSTATE, anything else as it is.
func errorText(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return "ERROR " + pgErr.Code + ": " + pgErr.Message
	}
	return err.Error()
}

// errorMessage returns the message a "statement error <regex>" matches:
// the server's message without decoration.
func errorMessage(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message
	}
	return err.Error()
}
