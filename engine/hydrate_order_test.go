package engine

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// TestHydrationOrder restarts an engine whose views' persisted states
// differ in size, hydrating one view at a time: the smallest state is
// restored first, so that the views that come back quickly are not
// queued behind the large ones.
func TestHydrationOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	te := openTest(t, t.TempDir())
	defer func() { te.stop() }()
	big, bigView := te.createTable("big")
	small, smallView := te.createTable("small")
	puts := map[int64]string{}
	for k := range int64(20000) {
		puts[k] = fmt.Sprintf("a value long enough to take some room, row %d", k)
	}
	te.write(big, puts, nil)
	te.write(small, map[int64]string{1: "one"}, nil)
	var mu sync.Mutex
	var order []string
	te.testing = &TestingKnobs{BeforeHydrate: func(object string) {
		mu.Lock()
		order = append(order, object)
		mu.Unlock()
	}}
	te.restart()
	te.contents(big, bigView)
	te.contents(small, smallView)
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(order) != "[view_small view_big]" {
		t.Errorf("hydration order %v, want the small state first", order)
	}
}
