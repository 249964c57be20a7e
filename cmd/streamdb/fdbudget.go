package main

// The process's open files are shared by three users: clients (one
// socket each), the store (Pebble keeps its tables open) and everything
// else (listeners, Kafka and PostgreSQL connections of sources and
// sinks, log and lock files). At the limit a new client hangs in the
// accept queue and the store fails every read that opens a table, so the
// limit is split up front: the store gets a bounded share, the rest of
// what is left after a fixed reserve goes to clients, and a client
// beyond that is refused with 53300 while descriptors remain for
// everything else.

const (
	// otherFiles is kept for what is neither a client nor the store.
	otherFiles = 64
	// maxStorageFiles is Pebble's own default bound on open tables.
	maxStorageFiles = 1000
)

// fileBudget is how the open-file limit is shared.
type fileBudget struct {
	// storage bounds the files the store keeps open (0: its default).
	storage int
	// connections bounds the clients connected at once.
	connections int
	// lowered is true when connections is below what was asked for.
	lowered bool
}

// splitFiles shares limit (0: unknown, nothing is bounded) between the
// store and clients, of which at most asked are wanted.
func splitFiles(limit uint64, asked int) fileBudget {
	if limit == 0 || limit > 1<<30 {
		return fileBudget{connections: asked}
	}
	usable := max(int(limit)-otherFiles, 2)
	storage := min(maxStorageFiles, usable/2)
	b := fileBudget{storage: storage, connections: asked}
	if free := usable - storage; asked > free {
		b.connections, b.lowered = max(free, 1), true
	}
	return b
}
