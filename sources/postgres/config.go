package postgres

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/streamdb/streamdb/sources"
)

// Connection says how to reach the upstream server: CREATE CONNECTION …
// TO POSTGRES.
type Connection struct {
	Host     string
	Port     int // 5432 when zero
	User     string
	Password string
	Database string
	// SSLMode is "disable", "require" (encrypted, the server's
	// certificate not checked) or "verify-full" (encrypted, certificate
	// and host name checked against SSLRootCert or the system's roots).
	// Empty means "disable".
	SSLMode string
	// SSLRootCert holds PEM certificates of the authorities verify-full
	// trusts; empty means the system's.
	SSLRootCert string
	// Dial, when set, opens every upstream socket: the server's egress
	// policy, which checks the address each time it is dialed (a
	// reconnect after a DNS change included). Nil dials directly.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// TableRef names an upstream table in FOR TABLES, with the name of the
// relation it becomes (As; the table's own name when empty).
type TableRef struct {
	Schema string // "public" when empty
	Name   string
	As     string
}

// ColumnRef names an upstream column in TEXT COLUMNS.
type ColumnRef struct {
	Schema string // any schema when empty
	Table  string
	Column string
}

// Config is a CREATE SOURCE … FROM POSTGRES statement resolved to values.
type Config struct {
	Connection  Connection
	Publication string
	// Slot names the durable replication slot the source owns upstream:
	// lower-case letters, digits and underscores, at most 48 of them
	// (temporary slots for later snapshots append 14 characters). The engine
	// derives it from the source, uniquely per streamdb instance.
	Slot string

	// The table selection: AllTables (FOR ALL TABLES), Tables (FOR
	// TABLES) or Schemas (FOR SCHEMAS); exactly one.
	AllTables bool
	Tables    []TableRef
	Schemas   []string
	// TextColumns are replicated as text whatever their upstream type.
	TextColumns []ColumnRef

	Logger *slog.Logger

	// SnapshotBatchRows and SnapshotBatchBytes bound one snapshot
	// batch: its rows, and the bytes of upstream's COPY data they came
	// from (their decoded form takes a few times that). Each batch is a
	// tick of the engine's: the larger they are, the fewer hand-overs
	// between goroutines, which a busy machine makes slow (8,192 rows,
	// 400 kB, had reading wait for the engine 40% of the time at load 10;
	// 32,768 rows 20%).
	SnapshotBatchRows  int
	SnapshotBatchBytes int
	// MaxBatchChanges is the number of changes past which the stream
	// stops adding whole transactions to a batch waiting to be emitted
	// (one transaction is never split, whatever its size).
	MaxBatchChanges int
	// StatusInterval is how often the stream confirms its position
	// upstream and checks the publication, at most.
	StatusInterval time.Duration
	// RetryMin and RetryMax bound the backoff between attempts to reach
	// a failed upstream.
	RetryMin, RetryMax time.Duration
}

// Defaults for Config's zero values.
const (
	DefaultSnapshotBatchRows  = 32768
	DefaultSnapshotBatchBytes = 4 << 20
	DefaultMaxBatchChanges    = 65536
	DefaultStatusInterval     = 10 * time.Second
	DefaultRetryMin           = time.Second
	DefaultRetryMax           = 30 * time.Second
)

// Table is one upstream table replicated into one output: what the engine
// keeps per subsource, as Discover returned it, and hands to Open when it
// rebuilds the source (with Output's columns as the engine's relation has
// them, after any AddColumns).
type Table struct {
	// Schema and Name name the upstream table; OID is its pg_class oid,
	// which tells a table dropped and created again under the same name
	// from the one that was snapshotted.
	Schema string
	Name   string
	OID    uint32
	// ID tells this replication of the table from an earlier one of the
	// same table into the same relation name (DROP SUBSOURCE, then ADD
	// SUBSOURCE): Discover draws it at random, and a table whose ID the
	// committed position does not know is snapshotted again.
	ID uint64
	// TextColumns names the upstream columns replicated as text.
	TextColumns []string
	// Output is the relation the table fills.
	Output sources.Output
}

// withDefaults fills Config's zero values.
func (c Config) withDefaults() Config {
	if c.Connection.Port == 0 {
		c.Connection.Port = 5432
	}
	if c.Connection.SSLMode == "" {
		c.Connection.SSLMode = "disable"
	}
	if c.SnapshotBatchRows <= 0 {
		c.SnapshotBatchRows = DefaultSnapshotBatchRows
	}
	if c.SnapshotBatchBytes <= 0 {
		c.SnapshotBatchBytes = DefaultSnapshotBatchBytes
	}
	if c.MaxBatchChanges <= 0 {
		c.MaxBatchChanges = DefaultMaxBatchChanges
	}
	if c.StatusInterval <= 0 {
		c.StatusInterval = DefaultStatusInterval
	}
	if c.RetryMin <= 0 {
		c.RetryMin = DefaultRetryMin
	}
	if c.RetryMax < c.RetryMin {
		c.RetryMax = max(DefaultRetryMax, c.RetryMin)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}
