package scalar

import (
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

// Session is the access path from evaluation to the session that runs a
// statement and to the catalog it sees. Package sql implements it and puts
// it in EvalContext.Session; the functions below reach the session only
// through it, which keeps this package free of the engine. All of them are
// stable or volatile, so the binder never folds them and refuses them in
// materialized views.
type Session interface {
	// Setting returns a run-time parameter's value; with missingOK an
	// unknown name gives ok false instead of 42704.
	Setting(name string, missingOK bool) (value string, ok bool, err error)
	// SetSetting changes a parameter for the session (or, with local,
	// the transaction) and returns its new value.
	SetSetting(name, value string, local bool) (string, error)
	// Database is the session's database name.
	Database() string
	// BackendPID is the session's process ID (BackendKeyData).
	BackendPID() int32
	// ServerStart is when the server started.
	ServerStart() time.Time
	// TxnID identifies the current transaction.
	TxnID() int64
	// Describe computes a catalog-describing function for an object
	// (pg_get_viewdef, pg_get_indexdef with a column number in arg,
	// pg_get_constraintdef, pg_get_userbyid, pg_get_function_result,
	// pg_get_function_arguments); ok false gives NULL.
	Describe(fn string, oid uint32, arg int) (text string, ok bool)
	// Visible reports pg_table_is_visible, pg_type_is_visible and
	// pg_function_is_visible: catalog is the OID of pg_class, pg_type or
	// pg_proc; ok is false when no such object exists.
	Visible(catalog, oid uint32) (visible, ok bool)
	// Exists reports whether an object of pg_class, pg_namespace or
	// pg_database has the OID, for the has_*_privilege functions.
	Exists(catalog, oid uint32) bool
	// Privilege answers has_*_privilege: whether role holds priv (a
	// privilege's name: SELECT, USAGE, …) on the object of catalog
	// (pg_class, pg_namespace or pg_database) with the OID, or with
	// grantOption the right to grant it. ok is false when there is no
	// such object, which gives NULL. An unknown role name is an error.
	Privilege(role RoleRef, catalog, oid uint32, priv string, grantOption bool) (has, ok bool, err error)
	// HasRole answers pg_has_role: whether member has group's privileges
	// (USAGE), is a member of it (MEMBER) or may grant it (with
	// adminOption).
	HasRole(member, group RoleRef, priv string, adminOption bool) (bool, error)
	// Sequence runs nextval, currval, setval (value, called) or lastval
	// (oid unused) on a sequence.
	Sequence(fn string, oid uint32, value int64, called bool) (int64, error)
	// AdvisoryLock takes an advisory lock on key (pair: a key made of two
	// integers), shared or exclusive, for the session or its transaction
	// (xact), waiting for it when wait is set; it reports whether the
	// session holds it.
	AdvisoryLock(key int64, pair, shared, xact, wait bool) (bool, error)
	// AdvisoryUnlock releases one session-level hold of a lock and
	// reports whether there was one.
	AdvisoryUnlock(key int64, pair, shared bool) bool
	// AdvisoryUnlockAll releases every session-level advisory lock.
	AdvisoryUnlockAll()
	// Notify queues a notification, sent when the transaction commits.
	Notify(channel, payload string) error
	// SerialSequence is pg_get_serial_sequence: the qualified name of the
	// sequence a serial or identity column uses; ok false gives NULL.
	SerialSequence(table, column string) (name string, ok bool, err error)
	// Sleep waits for d, or until the statement is canceled (its error
	// then), for pg_sleep.
	Sleep(d time.Duration) error
	// RelationSize is the size in bytes of a relation (pg_table_size and
	// its relatives); ok false when there is none with the OID.
	RelationSize(oid uint32) (size int64, ok bool, err error)
}

// RoleRef names a role in a has_*_privilege call: by name, or by OID
// with ByOID; the zero value is the current user.
type RoleRef struct {
	Name  string
	OID   uint32
	ByOID bool
}

// session returns the statement's session or the error of calling a
// session function where there is none.
func (c *EvalContext) session(fn string) (Session, error) {
	if c == nil || c.Session == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not available in this context", fn)
	}
	return c.Session, nil
}
