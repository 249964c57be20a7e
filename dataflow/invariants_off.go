//go:build !invariants

package dataflow

// invariants enables expensive self-checks; see invariants_on.go.
const invariants = false
