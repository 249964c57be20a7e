package sql

import (
	"context"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/parser"
)

// Secrets. A secret's value is sealed with the data directory's key
// (catalog.Catalog.Seal, internal/secretkey) before its object is built,
// so neither the store nor its write-ahead log ever holds the plaintext;
// its stored statement is secretSQL's, without the value; the statements
// that carry a value are logged without it (redactedText). Only a
// connection's source or sink opens the value, when it connects
// (secretByName).

// secretSQL is the statement a secret's object keeps, which SHOW CREATE
// SECRET prints: the value is never in it.
func secretSQL(name string) string {
	return "CREATE SECRET " + parser.QuoteIdent(name) + " AS '********'"
}

// bindAlterSecret binds ALTER SECRET … AS: a new value, sealed, for an
// existing secret. Sources and sinks that use it keep the value they
// connected with until they are created again (or the server restarts).
func (s *session) bindAlterSecret(st *parser.AlterSecret) (*boundStmt, error) {
	value := st.Value.Value
	b := ddl("ALTER SECRET", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			cat := tx.Catalog()
			o, name, ok := resolveName(cat, st.Name)
			if !ok || o.Kind != catalog.KindSecret {
				if st.IfExists {
					notice(pgerr.New(pgerr.SuccessfulCompletion, "secret %q does not exist, skipping", name))
					return nil
				}
				return pgerr.New(pgerr.UndefinedObject, "secret %q does not exist", name)
			}
			if err := requireOwner(cat, s.info.role, o); err != nil {
				return err
			}
			sealed, err := cat.Seal(value)
			if err != nil {
				return err
			}
			n := *o
			n.Secret, n.SealedSecret = "", sealed
			return tx.Replace(o, &n)
		})
	})
	b.catalogIndependent = true
	return b, nil
}

// sealPlaintextSecrets seals the values of secrets that a store written
// before secrets were encrypted holds in plaintext.
func sealPlaintextSecrets(tx *engine.DDL) error {
	cat := tx.Catalog()
	for _, o := range cat.Objects(catalog.KindSecret) {
		if o.Secret == "" || o.SealedSecret != nil {
			continue
		}
		sealed, err := cat.Seal(o.Secret)
		if err != nil {
			return err
		}
		n := *o
		n.Secret, n.SealedSecret, n.SQL = "", sealed, secretSQL(o.Name)
		if err := tx.Replace(o, &n); err != nil {
			return err
		}
	}
	return nil
}
