package authfile

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/streamdb/streamdb/internal/privatefile"

	"github.com/streamdb/streamdb/internal/scram"
)

const (
	// Name is the file in the data directory.
	Name = "auth.json"
	// PasswordName is the file a generated password is written to.
	PasswordName = "initial-password"
	// Superuser is the role created at first start.
	Superuser = "streamdb"
)

// File is what auth.json holds.
type File struct {
	// MockAuthNonce is the secret from which mock SCRAM salts are derived.
	MockAuthNonce []byte `json:"mock_auth_nonce"`
	Roles         []Role `json:"roles"`
}

// Role is a role as pg_authid holds it.
type Role struct {
	Name     string `json:"rolname"`
	Super    bool   `json:"rolsuper"`
	CanLogin bool   `json:"rolcanlogin"`
	// Password is the SCRAM-SHA-256 verifier, empty for none.
	Password string `json:"rolpassword"`
}

// Open reads dir's auth.json, creating it at first start with the
// superuser streamdb, whose password is password when not empty and is
// generated and written to initial-password otherwise (see the package
// comment). dir must exist.
func Open(dir, password string, log *slog.Logger) (*File, error) {
	path := filepath.Join(dir, Name)
	f, err := Read(dir)
	if err == nil {
		if password != "" {
			log.Info("STREAMDB_PASSWORD ignored: the roles were created at first start", "file", path)
		}
		return f, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	generated := password == ""
	pwPath := filepath.Join(dir, PasswordName)
	if generated {
		var b [24]byte
		rand.Read(b[:])
		password = base64.RawURLEncoding.EncodeToString(b[:])
		// The password is safe on disk before the verifier that needs it.
		if err := privatefile.Write(pwPath, []byte(password+"\n")); err != nil {
			return nil, err
		}
	}
	f = &File{
		MockAuthNonce: make([]byte, 32),
		Roles:         []Role{{Name: Superuser, Super: true, CanLogin: true, Password: scram.New(password).String()}},
	}
	rand.Read(f.MockAuthNonce)
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := privatefile.Write(path, append(b, '\n')); err != nil {
		return nil, err
	}
	if generated {
		log.Warn("created role "+Superuser+" with a generated password; read it from the file, and keep or delete the file", "file", pwPath)
	} else {
		log.Info("created role "+Superuser+" with the password from STREAMDB_PASSWORD", "file", path)
	}
	return f, nil
}

// Read reads dir's auth.json; the error wraps fs.ErrNotExist when there
// is none.
func Read(dir string) (*File, error) {
	path := filepath.Join(dir, Name)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.MockAuthNonce) == 0 {
		return nil, fmt.Errorf("%s: no mock_auth_nonce", path)
	}
	for _, r := range f.Roles {
		if r.Password == "" {
			continue
		}
		if _, err := scram.Parse(r.Password); err != nil {
			return nil, fmt.Errorf("%s: role %q: %w", path, r.Name, err)
		}
	}
	return &f, nil
}
