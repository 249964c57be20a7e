package sql

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/authfile"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
)

// Roles live in the catalog (catalog.KindRole objects). The first start
// creates the superuser streamdb as internal/authfile describes (its
// password from STREAMDB_PASSWORD or generated into initial-password),
// and moves it into the catalog at once: the roles of auth.json that the
// catalog lacks are created, with the mock SCRAM nonce put in the store's
// metadata, in one catalog change; then auth.json is removed. A crash in
// between leaves the file, and the next start finishes the move. A store
// written before roles existed gets the same treatment from the auth.json
// its server wrote.

// mockNonceMeta names the store's metadata holding the secret that salts
// for unknown role names are derived from (pgwire.AuthConfig.MockNonce).
const mockNonceMeta = "mock_auth_nonce"

// bootstrap gives the catalog what every catalog has before anyone
// connects: the database object, the predefined roles, the roles of the
// data directory's auth.json (created at first start) and the mock
// nonce; it also seals the plaintext secrets of stores written before
// secrets were encrypted. It returns the mock nonce.
func bootstrap(ctx context.Context, eng *engine.Engine, dir, password string, log *slog.Logger) ([]byte, error) {
	cat := eng.Snapshot().Catalog()
	var file *authfile.File
	var err error
	if _, ok := cat.Role(catalog.BootstrapRoleID); !ok {
		file, err = authfile.Open(dir, password, log)
	} else {
		if password != "" {
			log.Info("STREAMDB_PASSWORD ignored: the roles were created at first start; use ALTER ROLE … PASSWORD")
		}
		if file, err = authfile.Read(dir); errors.Is(err, fs.ErrNotExist) {
			file, err = nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	nonce, ok, err := eng.Meta(mockNonceMeta)
	if err != nil {
		return nil, err
	}
	setNonce := !ok
	if setNonce {
		if file != nil {
			nonce = file.MockAuthNonce
		} else {
			nonce = make([]byte, 32)
			rand.Read(nonce)
		}
	}
	err = eng.Setup(ctx, func(ctx context.Context, tx *engine.DDL) error {
		if setNonce {
			tx.SetMeta(mockNonceMeta, nonce)
		}
		if err := setupObjects(ctx, tx, file); err != nil {
			return err
		}
		return sealPlaintextSecrets(tx)
	})
	if err != nil {
		return nil, err
	}
	if file != nil {
		if err := os.Remove(filepath.Join(dir, authfile.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		log.Info("roles moved into the catalog", "roles", len(file.Roles))
	}
	return nonce, nil
}

// setupObjects creates the database object, the predefined roles and
// the roles of file that the catalog lacks.
func setupObjects(ctx context.Context, tx *engine.DDL, file *authfile.File) error {
	cat := tx.Catalog()
	if _, ok := cat.Database(); !ok {
		db := &catalog.Object{ID: catalog.DatabaseID, Kind: catalog.KindDatabase, Name: "streamdb"}
		if err := tx.Create(ctx, db); err != nil {
			return err
		}
	}
	if _, ok := cat.LookupRole(catalog.CreateConnectionRole); !ok {
		r := catalog.NewRole(catalog.CreateConnectionRoleID, catalog.CreateConnectionRole)
		r.RoleDef.Predefined = true
		if err := tx.Create(ctx, r); err != nil {
			return err
		}
	}
	if file == nil {
		return nil
	}
	for _, fr := range file.Roles {
		if _, ok := cat.LookupRole(fr.Name); ok {
			continue
		}
		id := catalog.BootstrapRoleID
		if _, taken := cat.ByID(id); taken || fr.Name != authfile.Superuser {
			id = tx.NextID()
		}
		r := catalog.NewRole(id, fr.Name)
		r.RoleDef.Super, r.RoleDef.Login, r.RoleDef.Password = fr.Super, fr.CanLogin, fr.Password
		if fr.Super {
			r.RoleDef.CreateRole, r.RoleDef.CreateDB, r.RoleDef.Replication, r.RoleDef.BypassRLS = true, true, true, true
		}
		if err := tx.Create(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// LoginRole implements pgwire.Roles from the catalog.
// The roles are in the store: a lookup waits for the engine to open.
func (e *Frontend) LoginRole(ctx context.Context, name string) (pgwire.LoginRole, bool, error) {
	if err := e.Wait(ctx); err != nil {
		if e.openErr != nil {
			return pgwire.LoginRole{}, false, e.startupError()
		}
		return pgwire.LoginRole{}, false, err
	}
	r, ok := e.snapshot().Catalog().LookupRole(name)
	if !ok {
		return pgwire.LoginRole{}, false, nil
	}
	lr := pgwire.LoginRole{Password: r.RoleDef.Password, CanLogin: r.RoleDef.Login}
	if r.RoleDef.ValidUntil != 0 {
		lr.ValidUntil = time.UnixMicro(r.RoleDef.ValidUntil)
	}
	return lr, true, nil
}

var _ pgwire.Roles = (*Frontend)(nil)

// RolesReady reports whether LoginRole answers without waiting
// (pgwire.StartingRoles): a client let in without a password does not
// wait for it, and its session checks its role once the engine has
// opened (awaitEngine).
func (e *Frontend) RolesReady() bool { return e.ready() && e.openErr == nil }

var _ pgwire.StartingRoles = (*Frontend)(nil)

// MockNonce returns the secret that the salts shown for unknown role
// names are derived from (pgwire.AuthConfig.MockNonce), kept in the
// store so that it never changes. It is nil until the engine has opened.
func (e *Frontend) MockNonce() []byte {
	if !e.ready() {
		return nil
	}
	return e.mockNonce
}

// loginRole checks that a client may start a session as the role it
// named, as PostgreSQL does after authentication: the role exists and
// may log in, the database lets it CONNECT, and it is within its
// connection limit. The caller holds e.mu.
func (e *Frontend) loginRole(cat *catalog.Catalog, user, database string) (*catalog.Object, error) {
	r, ok := cat.LookupRole(user)
	if !ok {
		return nil, pgerr.New(pgerr.InvalidAuthorization, "role \"%s\" does not exist", user)
	}
	if !r.RoleDef.Login {
		return nil, pgerr.New(pgerr.InvalidAuthorization, "role \"%s\" is not permitted to log in", user)
	}
	if db, ok := cat.Database(); ok && cat.Privileges(r.ID, db)&catalog.PrivConnect == 0 {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied for database \"%s\"", database).
			WithDetail("User does not have CONNECT privilege.")
	}
	if limit := r.RoleDef.ConnLimit; limit >= 0 && !r.RoleDef.Super {
		n := 0
		for _, s := range e.sessions {
			if s.info.loginRole == r.ID {
				n++
			}
		}
		if n >= limit {
			return nil, pgerr.New(pgerr.TooManyConnections, "too many connections for role \"%s\"", user)
		}
	}
	return r, nil
}
