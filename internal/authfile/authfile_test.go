package authfile

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/scram"
)

func logger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, nil))
}

// TestGeneratedPassword checks the first start without STREAMDB_PASSWORD:
// a password is generated into initial-password, only its verifier is
// kept, both files are the owner's alone, the log names the password
// file once, and a restart keeps everything as it was.
func TestGeneratedPassword(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	f, err := Open(dir, "", logger(&log))
	if err != nil {
		t.Fatal(err)
	}
	pwPath := filepath.Join(dir, PasswordName)
	pw, err := os.ReadFile(pwPath)
	if err != nil {
		t.Fatal(err)
	}
	password := strings.TrimSpace(string(pw))
	if len(password) < 32 {
		t.Errorf("generated password %q is short", password)
	}
	if len(f.Roles) != 1 || f.Roles[0] != (Role{Name: "streamdb", Super: true, CanLogin: true, Password: f.Roles[0].Password}) {
		t.Fatalf("roles %+v", f.Roles)
	}
	v, err := scram.Parse(f.Roles[0].Password)
	if err != nil || !v.Check(password) || v.Check(password+"x") {
		t.Fatalf("verifier %s does not match the password file (%v)", f.Roles[0].Password, err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, Name))
	if strings.Contains(string(raw), password) {
		t.Error("auth.json holds the password")
	}
	for _, name := range []string{Name, PasswordName} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", name, st.Mode().Perm(), err)
		}
	}
	if n := strings.Count(log.String(), pwPath); n != 1 {
		t.Errorf("log names %s %d times:\n%s", pwPath, n, log.String())
	}

	log.Reset()
	g, err := Open(dir, "", logger(&log))
	if err != nil {
		t.Fatal(err)
	}
	if g.Roles[0].Password != f.Roles[0].Password || !bytes.Equal(g.MockAuthNonce, f.MockAuthNonce) {
		t.Error("a restart changed the roles or the nonce")
	}
	if again, _ := os.ReadFile(pwPath); !bytes.Equal(again, pw) {
		t.Error("a restart rewrote initial-password")
	}
	if log.Len() != 0 {
		t.Errorf("a restart logged: %s", log.String())
	}
}

// TestEnvironmentPassword checks that STREAMDB_PASSWORD sets the first
// password, with no password file, and is ignored, with a word, later.
func TestEnvironmentPassword(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	f, err := Open(dir, "from env", logger(&log))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, PasswordName)); !os.IsNotExist(err) {
		t.Errorf("initial-password written although the password was given: %v", err)
	}
	if v, _ := scram.Parse(f.Roles[0].Password); !v.Check("from env") {
		t.Error("verifier does not match STREAMDB_PASSWORD")
	}
	log.Reset()
	g, err := Open(dir, "another", logger(&log))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := scram.Parse(g.Roles[0].Password); !v.Check("from env") || v.Check("another") {
		t.Error("a later STREAMDB_PASSWORD changed the password")
	}
	if !strings.Contains(log.String(), "STREAMDB_PASSWORD ignored") {
		t.Errorf("no word about the ignored password: %s", log.String())
	}
}

func TestReadRefusesDamage(t *testing.T) {
	for name, content := range map[string]string{
		"not json":     "{",
		"no nonce":     `{"roles": []}`,
		"bad verifier": `{"mock_auth_nonce": "AAAA", "roles": [{"rolname": "streamdb", "rolpassword": "plaintext"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, Name), []byte(content), 0o600)
			if _, err := Open(dir, "", logger(new(bytes.Buffer))); err == nil {
				t.Error("damaged auth.json accepted")
			}
			if _, err := os.Stat(filepath.Join(dir, PasswordName)); !os.IsNotExist(err) {
				t.Error("a damaged file was taken for a first start")
			}
		})
	}
}
