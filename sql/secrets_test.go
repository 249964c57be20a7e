package sql_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/testserver"
)

// syncBuffer is a bytes.Buffer the server's log may write to from many
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecretsStayHidden creates, changes and uses secrets, with
// statements that succeed and statements that fail, and looks for their
// values everywhere a client or an operator could see them: every
// relation of pg_catalog and information_schema, SHOW and SHOW CREATE,
// the errors, the log at debug level, and every file of the data
// directory (the store and its write-ahead log). It also checks that a
// role needs USAGE on a secret to use it, and the modes of the data
// directory and the key (the other files' are the umask's, which the
// binary sets: cmd/streamdb).
func TestSecretsStayHidden(t *testing.T) {
	var log syncBuffer
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: filepath.Join(dir, "data"), Log: &log, LogLevel: -4})
	conn := connect(t, srv.URL)
	ctx := context.Background()
	const marker = "sekrit"
	var seen []string
	check := func(where, text string) {
		if strings.Contains(text, marker) {
			t.Errorf("a secret's value in %s: %s", where, text)
		}
		seen = append(seen, where)
	}
	for _, q := range []string{
		"CREATE SECRET pw AS 'sekrit-one'",
		"ALTER SECRET pw AS 'sekrit-two'",
		"CREATE SECRET other AS 'sekrit-three'",
		"CREATE CONNECTION kc TO KAFKA (BROKER '127.0.0.1:1', SASL MECHANISMS 'PLAIN', SASL USERNAME 'u', SASL PASSWORD SECRET pw)",
		"CREATE ROLE alice LOGIN",
		"GRANT pg_create_connection TO alice",
		"GRANT CREATE ON SCHEMA public TO alice",
	} {
		exec(t, conn, q)
	}
	for _, q := range []string{
		"CREATE SECRET pw AS 'sekrit-four'",
		"CREATE SECRET bad AS 'sekrit-five' 'sekrit-six'",
		"CREATE SECRET bad AS 'sekrit-seven",
		"ALTER SECRET nope AS 'sekrit-eight'",
		"ALTER SECRET pw AS sekrit",
		"CREATE SECRET select AS 'sekrit-nine'",
	} {
		_, err := conn.Exec(ctx, q)
		if err == nil {
			t.Errorf("%s: no error", q)
			continue
		}
		check("the error of "+strings.Fields(q)[0]+" "+strings.Fields(q)[2], err.Error())
	}

	alice := connect(t, strings.Replace(srv.URL, "streamdb@", "alice@", 1))
	aliceConnection := "CREATE CONNECTION ac TO KAFKA (BROKER '127.0.0.1:1', SASL MECHANISMS 'PLAIN', SASL USERNAME 'u', SASL PASSWORD SECRET pw)"
	if _, err := alice.Exec(ctx, aliceConnection); sqlState(err) != "42501" || !strings.Contains(err.Error(), "permission denied for secret pw") {
		t.Errorf("a connection with a secret alice may not use: %v", err)
	}
	for _, q := range []string{"ALTER SECRET pw AS 'x'", "DROP SECRET pw"} {
		if _, err := alice.Exec(ctx, q); sqlState(err) != "42501" {
			t.Errorf("%s by a role that does not own it: %v", q, err)
		}
	}
	exec(t, conn, "GRANT USAGE ON SECRET pw TO alice")
	exec(t, alice, aliceConnection)

	for _, q := range []string{"SHOW SECRETS", "SHOW CONNECTIONS", "SHOW CREATE CONNECTION kc", "SHOW ALL"} {
		check(q, dump(t, conn, q))
	}
	relations := strings.Split(rows(t, conn, `SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname <> 'public' AND c.relkind IN ('r', 'v') ORDER BY 1`), "\n")
	if len(relations) < 40 {
		t.Fatalf("only %d system relations: %v", len(relations), relations)
	}
	for _, r := range relations {
		check(r, dump(t, conn, "SELECT * FROM "+r))
	}
	if got := rows(t, conn, "SELECT relacl::text FROM pg_class WHERE relname = 'pw'"); got != "{streamdb=U/streamdb,alice=U/streamdb}" {
		t.Errorf("the secret's ACL: %s", got)
	}

	srv.Stop()
	check("the log", log.String())
	if !strings.Contains(log.String(), `CREATE SECRET pw AS '********'`) {
		t.Errorf("the log has no redacted CREATE SECRET: it may not log statements at debug level")
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && info.Mode().Perm() != 0o700 {
				t.Errorf("%s: mode %v, want 0700", path, info.Mode().Perm())
			}
			return nil
		}
		if d.Name() == "secret.key" && info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", path, info.Mode().Perm())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		check(path, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "secret.key")); err != nil || files < 3 {
		t.Errorf("%d files, key: %v", files, err)
	}
	t.Logf("looked in %d places", len(seen))
}

// dump runs a query and returns its rows as text, every value printed.
func dump(t *testing.T, conn *pgx.Conn, q string) string {
	t.Helper()
	rs, err := conn.Query(context.Background(), q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	var b strings.Builder
	for rs.Next() {
		for _, v := range rs.RawValues() {
			fmt.Fprintf(&b, "%s|", v)
		}
		b.WriteByte('\n')
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return b.String()
}
