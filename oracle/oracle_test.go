//go:build cgo

package oracle

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	seedFlag     = flag.Int64("seed", 0, "run only this seed (in the modes of -oracle.mode)")
	modeFlag     = flag.String("oracle.mode", "", "small or big; both when empty")
	durationFlag = flag.Duration("oracle.duration", 0, "soak: run random seeds for this long (TestOracleSoak)")
	pgFlag       = flag.Bool("oracle.pg", true, "compare with a PostgreSQL 15 started by the test when it is installed")
	viewsFlag    = flag.Int("oracle.views", 0, "views per scenario (default 10)")
	minFlag      = flag.Bool("oracle.minimize", true, "minimise a failing scenario and log the script")
	saveFlag     = flag.String("oracle.save", "", "directory to write the scripts of failing scenarios to, and in a soak running.txt, how to rerun the scenario running (left behind if the process dies)")
	reportFlag   = flag.Bool("oracle.report", false, "log unsupported features, rejected views and PostgreSQL disagreements in full")
	knownFlag    = flag.Bool("oracle.known", false, "run regression scripts of known, open bugs instead of skipping them")
)

// fixedSeeds run in make test: each in both modes.
var fixedSeeds = []int64{1, 2, 3, 4, 5, 6, 7, 8}

func modes() []Mode {
	switch *modeFlag {
	case "small":
		return []Mode{Small}
	case "big":
		return []Mode{Big}
	}
	return []Mode{Small, Big}
}

// TestOracle runs the fixed seeds, or the one given with -seed, plus the
// seeds of testdata/seeds.txt, in each mode.
func TestOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end property test; skipped with -short")
	}
	seeds := fixedSeeds
	if *seedFlag != 0 {
		seeds = []int64{*seedFlag}
	} else {
		extra, err := loadSeeds("testdata/seeds.txt")
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, extra...)
	}
	tally := newTally()
	for _, seed := range seeds {
		for _, mode := range modes() {
			t.Run(fmt.Sprintf("seed=%d/%s", seed, mode), func(t *testing.T) {
				tally.add(checkSeed(t, seed, mode))
			})
		}
	}
	tally.log(t)
}

// TestOracleSoak runs random seeds until -oracle.duration has passed.
func TestOracleSoak(t *testing.T) {
	if *durationFlag == 0 {
		t.Skip("soak run; enable with -oracle.duration")
	}
	deadline := time.Now().Add(*durationFlag)
	base := time.Now().UnixNano() % 1_000_000_000
	tally := newTally()
	var failing []string
	for i := int64(0); time.Now().Before(deadline); i++ {
		seed := base + i
		mode := modes()[int(i)%len(modes())]
		name := fmt.Sprintf("seed=%d/%s", seed, mode)
		rerun := fmt.Sprintf("go test ./oracle -run 'TestOracle$' -seed %d -oracle.mode %s", seed, mode)
		// A panic in the server kills the test process, and the seed
		// with it: the scenario running is on file until it ends.
		running := filepath.Join(*saveFlag, "running.txt")
		if *saveFlag != "" {
			if err := os.WriteFile(running, []byte(rerun+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if !t.Run(name, func(t *testing.T) { tally.add(checkSeed(t, seed, mode)) }) {
			failing = append(failing, rerun)
		}
		if *saveFlag != "" {
			os.Remove(running)
		}
	}
	tally.log(t)
	if len(failing) > 0 {
		t.Logf("reproduce the failures with:\n%s", strings.Join(failing, "\n"))
	}
}

// checkSeed generates and runs one scenario, failing the test with the
// script (and a minimised one) when the engine disagrees with itself in
// a way testdata/known.txt does not list.
func checkSeed(t *testing.T, seed int64, mode Mode) *Outcome {
	sc := Generate(seed, Options{Mode: mode, Views: *viewsFlag})
	out := runScenario(t, sc, RunOptions{Postgres: postgresURL(t)})
	t.Log(out.summary())
	for v, d := range out.Time {
		if d > 2*time.Second {
			t.Logf("view %s took %s to check: %s", v, d.Round(time.Millisecond), viewQuery(sc, v))
		}
	}
	known, err := loadKnown("testdata/known.txt")
	if err != nil {
		t.Fatal(err)
	}
	var unexpected []Failure
	failed := map[string]bool{}
	for _, f := range out.Failures {
		failed[f.View] = true
		if bug, ok := known[knownKey(seed, mode, f.View)]; ok && *viewsFlag == 0 {
			t.Logf("known failure (%s): %s", bug, f)
			continue
		}
		unexpected = append(unexpected, f)
	}
	if *viewsFlag == 0 {
		for key, bug := range known {
			if strings.HasPrefix(key, knownKey(seed, mode, "")) && !failed[strings.TrimPrefix(key, knownKey(seed, mode, ""))] {
				t.Errorf("%s no longer fails: if %s is fixed, remove its lines from testdata/known.txt (and the known failure mark from its regression script)", key, bug)
			}
		}
	}
	if len(unexpected) == 0 {
		return out
	}
	var b strings.Builder
	for _, f := range unexpected {
		b.WriteString(f.String() + "\n")
	}
	if *saveFlag != "" {
		path := filepath.Join(*saveFlag, fmt.Sprintf("seed-%d-%s.sql", seed, mode))
		if err := os.WriteFile(path, []byte(sc.Script()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if *minFlag {
		for i, f := range unexpected {
			if i == 3 {
				break
			}
			if small := Minimize(sc, f, func(c *Scenario, only []string) *Outcome {
				return runScenario(t, c, RunOptions{Only: only, FailFast: true})
			}); small != nil {
				fmt.Fprintf(&b, "\nminimised reproduction of %s %s:\n%s", f.Kind, f.View, small.Script())
			}
		}
	}
	t.Errorf("seed %d (%s): %d failures\n%s\nreproduce with: go test ./oracle -run 'TestOracle$' -seed %d -oracle.mode %s",
		seed, mode, len(unexpected), b.String(), seed, mode)
	return out
}

// knownKey names a view of a generated scenario in testdata/known.txt.
func knownKey(seed int64, mode Mode, view string) string {
	return fmt.Sprintf("%d %s %s", seed, mode, view)
}

// loadKnown reads testdata/known.txt: failures of generated scenarios
// caused by open bugs, one per line as "seed mode view bug…", where bug
// names the regression script that reproduces it. TestOracle logs these
// instead of failing, and fails when one no longer occurs, so that the
// list shrinks as bugs are fixed. The list is only valid for the
// generator version that wrote it; a change of the generator that moves
// them is reviewed like any golden file.
func loadKnown(path string) (map[string]string, error) {
	text, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	known := map[string]string{}
	for i, line := range strings.Split(string(text), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 {
			return nil, fmt.Errorf("%s:%d: want \"seed mode view bug\"", path, i+1)
		}
		seed, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		known[knownKey(seed, Mode(f[1]), f[2])] = strings.Join(f[3:], " ")
	}
	return known, nil
}

func viewQuery(sc *Scenario, name string) string {
	for _, v := range sc.Views {
		if v.Name == name {
			return v.Query
		}
	}
	return ""
}

// tally adds up the outcomes of many scenarios for one summary.
type tally struct {
	views, checks, failures, rejected int
	unsupported                       map[string]int
	disagreements                     []string
	rejections                        []string
}

func newTally() *tally { return &tally{unsupported: map[string]int{}} }

func (t *tally) add(o *Outcome) {
	if o == nil {
		return
	}
	t.views += o.Views
	t.checks += o.Checks
	t.failures += len(o.Failures)
	t.rejected += len(o.Rejected)
	for m, n := range o.Unsupported {
		t.unsupported[m] += n
	}
	t.disagreements = append(t.disagreements, o.Disagreements...)
	t.rejections = append(t.rejections, o.Rejected...)
}

func (t *tally) log(tb testing.TB) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d views maintained, %d checks, %d failures, %d views rejected, %d PostgreSQL disagreements\n",
		t.views, t.checks, t.failures, t.rejected, len(t.disagreements))
	msgs := make([]string, 0, len(t.unsupported))
	for m := range t.unsupported {
		msgs = append(msgs, m)
	}
	sort.Slice(msgs, func(i, j int) bool { return t.unsupported[msgs[i]] > t.unsupported[msgs[j]] })
	b.WriteString("unsupported (0A000):\n")
	for _, m := range msgs {
		fmt.Fprintf(&b, "  %4d  %s\n", t.unsupported[m], m)
	}
	if *reportFlag {
		b.WriteString("rejected views:\n")
		for _, r := range t.rejections {
			b.WriteString("  " + r + "\n")
		}
		b.WriteString("PostgreSQL disagreements:\n")
		for _, d := range t.disagreements {
			b.WriteString("  " + d + "\n")
		}
	}
	tb.Log(b.String())
}
