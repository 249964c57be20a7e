//go:build cgo && unix

package oracle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// killedServer is bin/streamdb as a process on its own data directory,
// which a restart kills with SIGKILL and starts again: the views must
// come back from the state the last committed tick persisted.
type killedServer struct {
	bin, dir string
	addr     string
	cmd      *exec.Cmd
}

var streamdbBin struct {
	once sync.Once
	dir  string
	err  error
}

// buildStreamdb builds bin/streamdb once per test process.
func buildStreamdb(t *testing.T) string {
	t.Helper()
	streamdbBin.once.Do(func() {
		if streamdbBin.dir, streamdbBin.err = os.MkdirTemp("", "oracle-bin-*"); streamdbBin.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", streamdbBin.dir, "github.com/streamdb/streamdb/cmd/streamdb").CombinedOutput()
		if err != nil {
			streamdbBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if streamdbBin.err != nil {
		t.Fatal(streamdbBin.err)
	}
	return filepath.Join(streamdbBin.dir, "streamdb")
}

func startKilled(t *testing.T) *killedServer {
	s := &killedServer{bin: buildStreamdb(t), dir: t.TempDir()}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.kill)
	return s
}

func (s *killedServer) start() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.addr = l.Addr().String()
	l.Close()
	s.cmd = exec.Command(s.bin, "--listen", s.addr, "--data-dir", s.dir, "--log-level", "error")
	if err := s.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", s.addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("streamdb did not start on %s", s.addr)
}

func (s *killedServer) kill() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

func (s *killedServer) URL() string {
	return "postgres://streamdb@" + s.addr + "/streamdb?sslmode=disable"
}

func (s *killedServer) Restart(context.Context) error {
	s.kill()
	return s.start()
}

// TestOracleKill9 is TestOracle across crashes: the real binary runs the
// scenarios of a few fixed seeds, with restarts added at random steps,
// and each restart kills it with SIGKILL. After every restart each view,
// restored from its persisted state, must still equal its query run from
// scratch, and go on equal through the ticks after it.
func TestOracleKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills the server binary; skipped with -short")
	}
	for _, seed := range []int64{1, 2, 3} {
		for _, mode := range modes() {
			t.Run(fmt.Sprintf("seed=%d/%s", seed, mode), func(t *testing.T) {
				sc := Generate(seed, Options{Mode: mode, Views: *viewsFlag})
				addRestarts(sc, rand.New(rand.NewPCG(uint64(seed), 9)), 3)
				srv := startKilled(t)
				out, err := Run(context.Background(), sc, srv, RunOptions{})
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				t.Log(out.summary())
				known, err := loadKnown("testdata/known.txt")
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range out.Failures {
					if bug, ok := known[knownKey(seed, mode, f.View)]; ok {
						t.Logf("known failure (%s): %s", bug, f)
						continue
					}
					t.Errorf("seed %d (%s): %s", seed, mode, f)
				}
			})
		}
	}
}

// addRestarts inserts n restarts at random places among sc's steps.
func addRestarts(sc *Scenario, rng *rand.Rand, n int) {
	for range n {
		i := rng.IntN(len(sc.Steps) + 1)
		sc.Steps = append(sc.Steps[:i], append([]Step{{Restart: true}}, sc.Steps[i:]...)...)
	}
}
