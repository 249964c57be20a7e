package pgcatalog

import (
	"time"

	"github.com/streamdb/streamdb/sql/types"
)

// Source is the state the system relations are generated from: one
// consistent snapshot of the catalog plus the server's settings and
// sessions. Package sql implements it.
type Source interface {
	// Relations returns every user relation, in OID order.
	Relations() []*Relation
	// Relation returns the user relation with the given OID.
	Relation(oid uint32) (*Relation, bool)
	// RelationByName finds a user relation by schema and name.
	RelationByName(schema, name string) (*Relation, bool)
	// Settings returns the session's run-time parameters, sorted by name.
	Settings() []Setting
	// Activity returns one row per connected session.
	Activity() []Activity
	// Database and User are the session's database and user names.
	Database() string
	User() string
}

// Kind is pg_class.relkind.
type Kind byte

// Relation kinds.
const (
	KindTable            Kind = 'r'
	KindView             Kind = 'v'
	KindMaterializedView Kind = 'm'
	KindIndex            Kind = 'i'
	KindSequence         Kind = 'S'
)

// Relation is a user relation as the catalogs describe it.
type Relation struct {
	OID     uint32
	Schema  string
	Name    string
	Kind    Kind
	Columns []Attribute
	// PrimaryKey holds a table's primary key column positions (0-based).
	PrimaryKey []int
	// ViewDef is the defining SELECT of a view or materialized view.
	ViewDef string
	// On is the OID of the relation an index indexes, KeyCols its key
	// column positions in that relation, Unique whether it is unique.
	On      uint32
	KeyCols []int
	Unique  bool
	// Checks are a table's CHECK constraints.
	Checks []Check
}

// Check is a CHECK constraint: its name and expression.
type Check struct {
	Name, Expr string
}

// Attribute is a column of a user relation.
type Attribute struct {
	Name    string
	Type    types.Type
	NotNull bool
	// Default is the DEFAULT expression's SQL, empty when there is none.
	Default string
}

// Setting is one run-time parameter, a row of pg_settings.
type Setting struct {
	Name, Value, Description string
	// ReadOnly settings are reported with context "internal".
	ReadOnly bool
	// Changed is set when the session changed the value from its default.
	Changed bool
	Default string
}

// Activity is one session, a row of pg_stat_activity.
type Activity struct {
	PID                      int32
	Database, User           string
	ApplicationName          string
	ClientAddr               string
	ClientPort               int32
	BackendStart, QueryStart time.Time
	// State is "active" or "idle" (or "idle in transaction").
	State string
	Query string
}
