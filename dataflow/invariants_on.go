//go:build invariants

package dataflow

// invariants enables expensive self-checks (batches consolidated where the
// engine promises it, state counts consistent). Build with -tags invariants.
const invariants = true
