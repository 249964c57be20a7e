//go:build unix

package main

import (
	"os"
	"strings"
	"syscall"
)

// glibcHugeTLB is the glibc tunable that makes malloc ask for transparent
// huge pages (madvise MADV_HUGEPAGE) on the memory it maps.
const glibcHugeTLB = "glibc.malloc.hugetlb"

// thpEnabled is the kernel's transparent huge page mode.
const thpEnabled = "/sys/kernel/mm/transparent_hugepage/enabled"

// useHugePages re-executes the server, once, with glibc's malloc set to
// back its large allocations with transparent huge pages when the kernel
// only gives them to memory that asks (mode "madvise", the common
// default). Pebble allocates its memtables (64 MB each) and block cache
// with C malloc; with 4 kB pages every fresh memtable costs 16,384 page
// faults, which on virtual machines run to 10–20 µs each, and its skiplist
// inserts miss the TLB. With huge pages NEXMARK ingestion takes ~20% less
// CPU here. The tunable is read by the dynamic loader at exec, hence the
// re-exec; it keeps the process id. Setting GLIBC_TUNABLES with
// glibc.malloc.hugetlb yourself (=0 to refuse) skips it, as does any
// failure, which only costs the speed-up.
func useHugePages() {
	mode, err := os.ReadFile(thpEnabled)
	if err != nil || !strings.Contains(string(mode), "[madvise]") {
		return
	}
	env, ok := withHugeTLB(os.Environ())
	if !ok {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, env)
}

// withHugeTLB returns env with glibc.malloc.hugetlb=1 added to
// GLIBC_TUNABLES, and false when the tunable is already set.
func withHugeTLB(env []string) ([]string, bool) {
	const key = "GLIBC_TUNABLES="
	out := make([]string, 0, len(env)+1)
	found := false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key); ok {
			if strings.Contains(v, glibcHugeTLB+"=") {
				return env, false
			}
			kv = key + v + ":" + glibcHugeTLB + "=1"
			if v == "" {
				kv = key + glibcHugeTLB + "=1"
			}
			found = true
		}
		out = append(out, kv)
	}
	if !found {
		out = append(out, key+glibcHugeTLB+"=1")
	}
	return out, true
}
