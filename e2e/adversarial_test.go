package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// adversarialMemory is the GOMEMLIMIT the server runs under: its memory
// guard cancels statements near three quarters of it.
const adversarialMemory = 512 << 20

// adversarialRSS is the resident size the server must stay under. Past
// it the test kills the server, so that a runaway statement fails the
// test instead of the machine.
const adversarialRSS = 2 << 30

// adversarialCase is a statement meant to take a server down, and the
// SQLSTATEs it may end with ("" for success: PostgreSQL answers it).
// A guarded case runs without a statement_timeout, so that only the
// memory guard stops it.
type adversarialCase struct {
	name    string
	sql     string
	codes   []string
	guarded bool
}

// guardedRSS bounds the server's resident size while a guarded case
// runs: the guard cancels at three quarters of GOMEMLIMIT's heap, and
// the rest is the runtime's, Pebble's and the sampler's slack.
const guardedRSS = adversarialMemory + 320<<20

// returnedRSS is the resident size the server must be back under within
// returnedWithin of a guarded case: the memory returned, down to the
// guard's limit (what stays is the heap's fragments and the runtime's).
const (
	returnedRSS    = adversarialMemory / 4 * 3
	returnedWithin = 20 * time.Second
)

// adversarialCopy is how much data a COPY FROM STDIN case sends.
const adversarialCopy = 2 << 30

// adversarialCases are the statements of TestAdversarial. The resource
// hogs run under a statement_timeout of a second: they end with 57014 or
// 53200, whichever comes first, or succeed on a fast machine.
func adversarialCases() []adversarialCase {
	r := strings.Repeat
	cols := func(prefix string, n int) string {
		c := make([]string, n)
		for i := range c {
			c[i] = fmt.Sprintf("1 AS %s%d", prefix, i)
		}
		return strings.Join(c, ", ")
	}
	or := make([]string, 10000)
	for i := range or {
		or[i] = fmt.Sprintf("g = %d", i+1)
	}
	in := make([]string, 100000)
	for i := range in {
		in[i] = strconv.Itoa(i)
	}
	hog := []string{"", "57014", "53200"}
	oom := []string{"53200"}
	return []adversarialCase{
		// Cross joins of table functions: billions of matches.
		{"cross join", "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b", hog, false},
		{"three-way join", "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b, generate_series(1, 100000) c WHERE a.a = b.b", hog, false},
		{"sorted cross join", "SELECT * FROM generate_series(1, 100000) a, generate_series(1, 100000) b ORDER BY 1 DESC, 2", hog, false},
		{"lateral expansion", "SELECT count(*) FROM generate_series(1, 100000) a CROSS JOIN LATERAL generate_series(1, a) b", hog, false},
		{"jsonb elements", "SELECT count(*) FROM (SELECT jsonb_agg(g) AS j FROM generate_series(1, 100000) g) s, jsonb_array_elements(s.j) a, jsonb_array_elements(s.j) b", hog, false},
		{"unnest", "SELECT count(*) FROM (SELECT array_agg(g) AS v FROM generate_series(1, 100000) g) s, unnest(s.v) a, unnest(s.v) b", hog, false},
		// Huge values.
		{"repeat past 1 GB", "SELECT length(repeat('x', 2000000000))", []string{"54000"}, false},
		{"repeat of repeat", "SELECT length(repeat(repeat('x', 100000000), 100))", []string{"54000"}, false},
		{"rows of 10 MB", "SELECT repeat('x', 10000000) FROM generate_series(1, 100)", hog, false},
		{"10 MB values counted", "SELECT count(repeat('x', 10000000)) FROM generate_series(1, 1000)", hog, false},
		{"string_agg past 1 GB", "SELECT length(string_agg(repeat('x', 1000000), '')) FROM generate_series(1, 2000)", []string{"54000", "57014", "53200"}, false},
		{"numeric power", "SELECT 10::numeric ^ 100000000", []string{"22003"}, false},
		// State that grows with the input.
		{"distinct", "SELECT count(*) FROM (SELECT DISTINCT repeat(g::text, 100) FROM generate_series(1, 100000000) g) x", hog, false},
		{"window", "SELECT max(n) FROM (SELECT row_number() OVER () AS n FROM generate_series(1, 100000000)) x", hog, false},
		{"array_agg", "SELECT cardinality(array_agg(g)) FROM generate_series(1, 100000000) g", hog, false},
		{"hash join", "SELECT count(*) FROM generate_series(1, 30000000) a JOIN generate_series(1, 30000000) b ON a = b", hog, false},
		// generate_series in every position.
		{"in the select list", "SELECT generate_series(1, 1000000000000) LIMIT 5", hog, false},
		{"over a column", "SELECT count(*) FROM (SELECT generate_series(1, g) FROM generate_series(1, 100000) g) x", hog, false},
		{"in WHERE", "SELECT count(*) FROM generate_series(1, 10) g WHERE g IN (SELECT generate_series(1, 1000000000))", hog, false},
		{"ordered", "SELECT g FROM generate_series(1, 1000000000) g ORDER BY g DESC LIMIT 1", hog, false},
		{"grouped", "SELECT g % 10, count(*) FROM generate_series(1, 1000000000) g GROUP BY 1", hog, false},
		{"in a CASE", "SELECT count(*) FROM (SELECT CASE WHEN g > 0 THEN g END FROM generate_series(1, 1000000000) g) x", hog, false},
		{"in an aggregate's argument", "SELECT sum(g) FROM generate_series(1, 1000000000) g", hog, false},
		{"over timestamps", "SELECT count(*) FROM generate_series('2000-01-01'::timestamp, '3000-01-01', '1 second')", hog, false},
		// Deep text: the parser's limits.
		{"24,000 terms", "SELECT 1" + r("+1", 24000), []string{"54001"}, false},
		{"concatenations", "SELECT 'a'" + r("||'a'", 50000), []string{"54001"}, false},
		{"json arrows", "SELECT '{}'::jsonb" + r("->'a'", 30000), []string{"54001"}, false},
		{"casts", "SELECT 1" + r("::int", 30000), []string{"54001"}, false},
		{"joins", "SELECT 1 FROM generate_series(1, 1) g0" + r(" JOIN generate_series(1, 1) ON true", 30000), []string{"54001"}, false},
		{"unions", "SELECT 1" + r(" UNION ALL SELECT 1", 30000), []string{"54001"}, false},
		{"parentheses", "SELECT " + r("(", 100000) + "1" + r(")", 100000), []string{"42601"}, false},
		{"calls", "SELECT " + r("abs(", 100000) + "1" + r(")", 100000), []string{"54001"}, false},
		{"subqueries", "SELECT " + r("(SELECT ", 3000) + "1" + r(")", 3000), []string{"54001"}, false},
		{"NOT", "SELECT " + r("NOT ", 20000) + "true", []string{"54001"}, false},
		{"arrays 30 deep", "SELECT " + r("ARRAY[", 30) + "1" + r("]", 30), []string{"54000"}, false},
		{"arrays 1,000 deep", "SELECT " + r("ARRAY[", 1000) + "1" + r("]", 1000), []string{"54000"}, false},
		{"65,536 columns", "SELECT " + strings.TrimSuffix(r("1,", 65536), ","), []string{"54011"}, false},
		{"1,665 columns", "SELECT " + strings.TrimSuffix(r("1,", 1665), ","), []string{"54011"}, false},
		{"2,000 columns by *", "SELECT * FROM (SELECT " + cols("a", 1000) + ") x, (SELECT " + cols("b", 1000) + ") y", []string{"54011"}, false},
		{"deep jsonb", "SELECT '" + r("[", 100000) + r("]", 100000) + "'::jsonb", []string{"54001"}, false},
		{"views doubling", "SELECT count(*) FROM w15", hog, false},
		// Wide and long, which PostgreSQL answers.
		{"10,000-way OR", "SELECT count(*) FROM generate_series(1, 2000) g WHERE " + strings.Join(or, " OR "), []string{""}, false},
		{"100,000-value IN", "SELECT count(*) FROM generate_series(1, 200000) g WHERE g IN (" + strings.Join(in, ",") + ")", []string{""}, false},
		{"100-view chain", "SELECT count(*), max(a) FROM c100", []string{""}, false},
		{"a 20 MB literal", "SELECT length('" + r("x", 20<<20) + "')", []string{""}, false},
		{"200 kB of SELECT 1;", r("SELECT 1;", 200<<10/9), []string{""}, false},
		// Writes.
		{"COPY of 2 GB", "COPY big FROM STDIN", []string{"53200", "57014"}, false},
		{"INSERT of a billion rows", "INSERT INTO big SELECT g, 'x' FROM generate_series(1, 1000000000) g", hog, false},
		// The memory guard alone, without a timeout: it must cancel the
		// statement that holds the memory, with 53200, before the
		// process's limit, and return the memory afterwards.
		{"guard: distinct", "SELECT count(*) FROM (SELECT DISTINCT repeat(g::text, 100) FROM generate_series(1, 100000000) g) x", oom, true},
		{"guard: sorted cross join", "SELECT * FROM generate_series(1, 100000) a, generate_series(1, 100000) b ORDER BY 1 DESC, 2", oom, true},
		{"guard: array_agg", "SELECT cardinality(array_agg(g)) FROM generate_series(1, 100000000) g", oom, true},
		{"guard: window", "SELECT max(n) FROM (SELECT row_number() OVER () AS n FROM generate_series(1, 100000000)) x", oom, true},
		{"guard: hash join", "SELECT count(*) FROM generate_series(1, 30000000) a JOIN generate_series(1, 30000000) b ON a = b", oom, true},
		{"guard: COPY of 2 GB", "COPY big FROM STDIN", oom, true},
		// PostgreSQL 15 answers ten megabytes of SELECT 1; in 13 s.
		{"10 MB of SELECT 1;", r("SELECT 1;", 10<<20/9), []string{""}, true},
	}
}

// TestAdversarial runs statements meant to take a server down against a
// real streamdb process under a tight memory limit (GOMEMLIMIT of
// 512 MiB): the server must survive every one of them, each must end
// with its SQLSTATE, the server must answer at once afterwards, and a
// session reading a materialized view meanwhile must never fail. Its
// resident size is watched throughout: past adversarialRSS the test
// kills it and fails. The guarded cases, without a timeout, must stay
// under guardedRSS and fall back under returnedRSS afterwards.
func TestAdversarial(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: statements meant to take the server down")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to watch the server's memory")
	}
	p, addr := startStreamdbEnv(t, t.TempDir(), []string{"GOMEMLIMIT=" + strconv.Itoa(adversarialMemory)})
	watch := watchRSS(t, p)
	url := pgURL(addr)
	setup := connect(t, url)
	setup.exec("CREATE TABLE small (a int)")
	setup.exec("INSERT INTO small SELECT g FROM generate_series(1, 1000) g")
	setup.exec("CREATE MATERIALIZED VIEW small_sum AS SELECT count(*) AS n, sum(a) AS s FROM small")
	setup.exec("CREATE TABLE big (a int, b text)")
	setup.exec("CREATE VIEW w0 AS SELECT 1 AS a")
	for i := 1; i <= 15; i++ {
		setup.exec(fmt.Sprintf("CREATE VIEW w%d AS SELECT x.a FROM w%d x, w%d y", i, i-1, i-1))
	}
	if err := setup.try("CREATE VIEW w16 AS SELECT x.a FROM w15 x, w15 y"); pgCode(err) != "54000" {
		t.Errorf("a view of 65,536 relations: %v, want 54000", err)
	}
	setup.exec("CREATE VIEW c0 AS SELECT g AS a FROM generate_series(1, 1000) g")
	for i := 1; i <= 100; i++ {
		setup.exec(fmt.Sprintf("CREATE VIEW c%d AS SELECT a + 1 AS a FROM c%d WHERE a > %d", i, i-1, i))
	}

	bystander := connect(t, url)
	stop := make(chan struct{})
	var bystanderErr atomic.Value
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if got, err := bystander.query("SELECT n, s FROM small_sum"); err != nil || got != "1000|500500" {
				bystanderErr.Store(fmt.Errorf("%q, %v", got, err))
				return
			}
		}
	})

	for _, c := range adversarialCases() {
		conn, err := pgconn.Connect(context.Background(), url)
		if err != nil {
			t.Fatalf("%s: connecting: %v", c.name, err)
		}
		start := time.Now()
		watch.reset()
		err = runAdversarial(conn, c)
		conn.Close(context.Background())
		took, most := time.Since(start), watch.most()
		code := pgCode(err)
		if err != nil && code == "" || !contains(c.codes, code) {
			t.Errorf("%s: %v (SQLSTATE %q), want one of %q", c.name, err, code, c.codes)
		}
		select {
		case <-p.done:
			t.Fatalf("%s: the server died (resident size at most %d MB):\n%s", c.name, most>>20, p.log.String())
		default:
		}
		if got := setup.rows("SELECT 1"); got != "1" {
			t.Fatalf("%s: afterwards SELECT 1 = %q", c.name, got)
		}
		returned := ""
		if c.guarded {
			if most > guardedRSS {
				t.Errorf("%s: resident size reached %d MB, past %d MB", c.name, most>>20, guardedRSS>>20)
			}
			back, ok := watch.fallsUnder(returnedRSS, returnedWithin)
			if !ok {
				t.Errorf("%s: resident size %d MB %v after the statement, want under %d MB", c.name, back>>20, returnedWithin, returnedRSS>>20)
			}
			returned = fmt.Sprintf(", %4d MB after", back>>20)
		}
		t.Logf("%-28s %-6s %6.1fs, resident at most %4d MB%s", c.name, code, took.Seconds(), most>>20, returned)
	}
	close(stop)
	wg.Wait()
	if err, _ := bystanderErr.Load().(error); err != nil {
		t.Errorf("the session reading a view meanwhile failed: %v", err)
	}
	setup.exec("INSERT INTO small VALUES (1001)")
	if got := setup.rows("SELECT n, s FROM small_sum"); got != "1001|501501" {
		t.Errorf("the view after everything: %s", got)
	}
}

// runAdversarial runs one case on its own connection, reading and
// dropping its rows, under a statement_timeout of a second unless it is
// guarded.
func runAdversarial(conn *pgconn.PgConn, c adversarialCase) error {
	limit := 2 * time.Minute
	if c.guarded {
		// Ten megabytes of SELECT 1; take 26 s on an idle machine of two
		// cores, over 100 s on a loaded one.
		limit = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if !c.guarded {
		if _, err := conn.Exec(ctx, "SET statement_timeout = '1s'").ReadAll(); err != nil {
			return err
		}
	}
	if strings.HasPrefix(c.sql, "COPY") {
		_, err := conn.CopyFrom(ctx, &rowsReader{left: adversarialCopy}, c.sql)
		return err
	}
	mr := conn.Exec(ctx, c.sql)
	for mr.NextResult() {
		rr := mr.ResultReader()
		for rr.NextRow() {
		}
		if _, err := rr.Close(); err != nil {
			mr.Close()
			return err
		}
	}
	return mr.Close()
}

// rowsReader produces COPY text rows of the table big until left bytes
// have been read.
type rowsReader struct {
	left int64
	n    int
	buf  []byte
}

func (r *rowsReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	for len(r.buf) < len(p) {
		r.n++
		r.buf = fmt.Appendf(r.buf, "%d\t%s\n", r.n, strings.Repeat("y", 100))
	}
	n := copy(p, r.buf)
	r.buf = r.buf[:copy(r.buf, r.buf[n:])]
	r.left -= int64(n)
	return n, nil
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func contains(codes []string, code string) bool {
	for _, c := range codes {
		if c == code {
			return true
		}
	}
	return false
}

// rssWatch samples a process's resident size.
type rssWatch struct {
	peak, now atomic.Int64
}

// most is the largest resident size sampled since the last reset.
func (w *rssWatch) most() int64 { return w.peak.Load() }

func (w *rssWatch) reset() { w.peak.Store(w.now.Load()) }

// fallsUnder waits up to d for the resident size to fall under n and
// returns the last sample.
func (w *rssWatch) fallsUnder(n int64, d time.Duration) (int64, bool) {
	deadline := time.Now().Add(d)
	for {
		if now := w.now.Load(); now < n || time.Now().After(deadline) {
			return now, now < n
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// watchRSS samples p's resident size every 20 ms until the test ends,
// and kills p, failing the test, past adversarialRSS.
func watchRSS(t *testing.T, p *process) *rssWatch {
	w := &rssWatch{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(done)
		wg.Wait()
	})
	path := fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-p.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return
			}
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
					kb, _ := strconv.ParseInt(f[1], 10, 64)
					w.now.Store(kb << 10)
					if kb<<10 > w.peak.Load() {
						w.peak.Store(kb << 10)
					}
					if kb<<10 > adversarialRSS {
						t.Errorf("the server's resident size reached %d MB: killed", kb>>10)
						p.kill()
						return
					}
				}
			}
		}
	})
	return w
}
