package sqllogictest

import (
	"context"
	"os"
	"sort"
	"sync"
)

// runParallel runs files on the server at cfg.URL and on every worker at
// once, each server running one file at a time. Files start largest
// first, so that a long file does not start last and leave the other
// servers idle at the end. report sees the results in the order of files,
// each as soon as it and the ones before it are done.
func runParallel(ctx context.Context, cfg Config, files []string, report func(*FileResult)) {
	workers := append([]Worker{{URL: cfg.URL, Restart: cfg.Restart}}, cfg.Workers...)
	order := make([]int, len(files))
	size := make([]int64, len(files))
	for i, f := range files {
		order[i] = i
		if st, err := os.Stat(f); err == nil {
			size[i] = st.Size()
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return size[order[a]] > size[order[b]] })
	jobs := make(chan int)
	go func() {
		defer close(jobs)
		for _, i := range order {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()

	var mu sync.Mutex
	results := make([]*FileResult, len(files))
	next := 0
	var wg sync.WaitGroup
	for _, w := range workers {
		wc := cfg
		wc.URL, wc.Restart, wc.Workers = w.URL, w.Restart, nil
		wg.Go(func() {
			url := wc.URL
			for i := range jobs {
				fr := runFile(ctx, &wc, &url, files[i])
				mu.Lock()
				results[i] = &fr
				for next < len(results) && results[next] != nil {
					report(results[next])
					results[next] = nil
					next++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// Files cut short by cancellation leave gaps; report what did run.
	for _, fr := range results[next:] {
		if fr != nil {
			report(fr)
		}
	}
}
