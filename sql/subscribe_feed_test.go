package sql_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// feed reads a subscription's rows on a connection of its own, as COPY
// (SUBSCRIBE …) TO STDOUT text, in the background, and checks them
// against the expected sequence with the timestamps made symbolic: the
// first timestamp of a data row is t0, the next new one t1, and so on, and
// a run of progress rows is one "progress" line. It checks that progress
// keeps its promise: no data row comes at a time before a progress row's.
type feed struct {
	t        *testing.T
	conn     *pgx.Conn
	progress bool
	lines    chan string
	done     chan error
	cancel   context.CancelFunc

	labels   map[string]string
	times    map[string]uint64
	frontier uint64
	lastProg bool
	tag      string
}

// startFeed runs query (a COPY (SUBSCRIBE …) TO STDOUT) on a new
// connection; progress says whether its rows have mz_progressed.
func startFeed(t *testing.T, url, query string, progress bool) *feed {
	t.Helper()
	conn := connect(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	f := &feed{t: t, conn: conn, progress: progress, lines: make(chan string, 1<<16), done: make(chan error, 1),
		cancel: cancel, labels: map[string]string{}, times: map[string]uint64{}}
	w := &lineSplitter{out: f.lines}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tag, err := conn.PgConn().CopyTo(ctx, w, query)
		f.tag = tag.String()
		f.done <- err
	}()
	// Before the connection closes (cleanups run last first).
	t.Cleanup(func() {
		cancel()
		<-finished
	})
	return f
}

// lineSplitter sends each complete line written to it.
type lineSplitter struct {
	mu   sync.Mutex
	part []byte
	out  chan string
}

func (w *lineSplitter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.out <- string(w.part[:i])
		w.part = w.part[i+1:]
	}
}

// next returns the next row's normalised line, skipping progress rows
// after the first of a run; ok is false when the feed ended.
func (f *feed) next(timeout time.Duration) (string, bool) {
	f.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line := <-f.lines:
			if s, ok := f.normalise(line); ok {
				return s, true
			}
		case err := <-f.done:
			f.done <- err
			select {
			case line := <-f.lines:
				// Rows that came before the end.
				if s, ok := f.normalise(line); ok {
					return s, true
				}
				continue
			default:
			}
			return "", false
		case <-deadline:
			f.t.Fatalf("no row within %v", timeout)
		}
	}
}

func (f *feed) normalise(line string) (string, bool) {
	f.t.Helper()
	cols := strings.Split(line, "\t")
	ts, err := strconv.ParseUint(cols[0], 10, 64)
	if err != nil {
		f.t.Fatalf("mz_timestamp %q: %v", cols[0], err)
	}
	rest := cols[1:]
	if f.progress {
		if rest[0] == "t" {
			if ts < f.frontier {
				f.t.Errorf("progress went back from %d to %d", f.frontier, ts)
			}
			f.frontier = ts
			first := !f.lastProg
			f.lastProg = true
			return "progress", first
		}
		rest = rest[1:]
	}
	f.lastProg = false
	if ts < f.frontier {
		f.t.Errorf("a row at %d after progress at %d: %s", ts, f.frontier, line)
	}
	label, ok := f.labels[cols[0]]
	if !ok {
		label = "t" + strconv.Itoa(len(f.labels))
		f.labels[cols[0]] = label
		f.times[label] = ts
	}
	return label + " " + strings.Join(rest, " "), true
}

// expect checks the next rows.
func (f *feed) expect(want ...string) {
	f.t.Helper()
	for i, w := range want {
		got, ok := f.next(10 * time.Second)
		if !ok {
			f.t.Fatalf("row %d: the feed ended (%v), want %q", i, f.err(), w)
		}
		if got != w {
			f.t.Fatalf("row %d = %q, want %q", i, got, w)
		}
	}
}

// quiet checks that no row but progress arrives for a while.
func (f *feed) quiet(d time.Duration) {
	f.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case line := <-f.lines:
			if s, ok := f.normalise(line); ok && s != "progress" {
				f.t.Fatalf("unexpected row %q", s)
			}
		case <-deadline:
			return
		}
	}
}

// ended waits for the feed to end and returns its error.
func (f *feed) ended() error {
	f.t.Helper()
	for {
		select {
		case line := <-f.lines:
			if s, ok := f.normalise(line); ok && s != "progress" {
				f.t.Fatalf("unexpected row %q before the end", s)
			}
		case err := <-f.done:
			f.done <- err
			return err
		case <-time.After(10 * time.Second):
			f.t.Fatal("the feed did not end")
		}
	}
}

// err returns the feed's error once it ended.
func (f *feed) err() error {
	select {
	case err := <-f.done:
		f.done <- err
		return err
	default:
		return nil
	}
}

// time returns the timestamp a label stands for.
func (f *feed) time(label string) uint64 {
	f.t.Helper()
	ts, ok := f.times[label]
	if !ok {
		f.t.Fatalf("no timestamp %s yet", label)
	}
	return ts
}

// fetch runs a FETCH and renders its rows as the feed does, with the
// labels of labels (shared across the FETCHes of one cursor).
func fetch(t *testing.T, conn *pgx.Conn, labels map[string]string, query string) []string {
	t.Helper()
	rs, err := conn.Query(context.Background(), query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		raw := rs.RawValues()
		parts := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = string(v)
			}
		}
		label, ok := labels[parts[0]]
		if !ok {
			label = "t" + strconv.Itoa(len(labels))
			labels[parts[0]] = label
		}
		out = append(out, label+" "+strings.Join(parts[1:], " "))
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// waitSessions waits until pg_stat_activity lists n sessions.
func waitSessions(t *testing.T, conn *pgx.Conn, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var got int
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions after %v, want %d", got, within, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
