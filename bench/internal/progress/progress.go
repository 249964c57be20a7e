// Package progress draws the one-line progress bar the benchmark harnesses
// show on stderr while they run: overall completion, the step in hand and
// the elapsed time.
//
// On a terminal the line is redrawn in place (at most every 100ms, so that
// callers may report as often as they like); elsewhere, such as a CI log,
// only step changes are printed, one line each, so logs stay short.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar is a progress bar over a fixed number of equal steps. It is safe for
// concurrent use.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	total    int
	done     int
	label    string
	frac     float64 // completion of the current step, 0..1
	start    time.Time
	lastDraw time.Time
	width    int // length of the last line drawn, to blank leftovers
}

// New returns a bar of total steps writing to w. A w that is a character
// device (a terminal) is redrawn in place.
func New(w io.Writer, total int) *Bar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	return &Bar{w: w, tty: tty, total: max(total, 1), start: time.Now()}
}

// Step starts a new step called label (the steps before it are complete
// when done is their number).
func (b *Bar) Step(done int, label string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done, b.label, b.frac = done, label, 0
	if !b.tty {
		fmt.Fprintf(b.w, "[%3.0f%%] %s (%s)\n", b.percent(), label, b.elapsed())
		return
	}
	b.draw()
}

// Update reports that frac (0..1) of the current step is complete.
func (b *Bar) Update(frac float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.frac = min(max(frac, 0), 1)
	if b.tty && time.Since(b.lastDraw) >= 100*time.Millisecond {
		b.draw()
	}
}

// Finish draws the complete bar and ends its line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done, b.frac, b.label = b.total, 0, "done"
	if b.tty {
		b.draw()
		fmt.Fprintln(b.w)
		return
	}
	fmt.Fprintf(b.w, "[100%%] done (%s)\n", b.elapsed())
}

// Printf prints a message on its own line above the bar.
func (b *Bar) Printf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", b.width))
	}
	fmt.Fprintf(b.w, format, args...)
	if !strings.HasSuffix(format, "\n") {
		fmt.Fprintln(b.w)
	}
	if b.tty {
		b.draw()
	}
}

func (b *Bar) percent() float64 {
	return 100 * min((float64(b.done)+b.frac)/float64(b.total), 1)
}

func (b *Bar) elapsed() string { return time.Since(b.start).Round(time.Second).String() }

// draw renders the bar as "[#####.....]  42% label (1m3s)".
func (b *Bar) draw() {
	const cells = 30
	filled := int(b.percent() / 100 * cells)
	line := fmt.Sprintf("[%s%s] %3.0f%% %s (%s)", strings.Repeat("#", filled), strings.Repeat(".", cells-filled),
		b.percent(), b.label, b.elapsed())
	pad := max(b.width-len(line), 0)
	fmt.Fprintf(b.w, "\r%s%s", line, strings.Repeat(" ", pad))
	b.width = len(line)
	b.lastDraw = time.Now()
}
