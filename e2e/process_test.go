package e2e

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binaries are bin/streamdb and bin/devkafka, built once per test run into
// a directory TestMain removes.
var binaries struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopPGCluster()
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
	os.Exit(code)
}

// binary returns the path of a command of the repository (streamdb,
// devkafka), building them all on first use.
func binary(t testing.TB, name string) string {
	t.Helper()
	binaries.once.Do(func() {
		binaries.dir, binaries.err = os.MkdirTemp("", "streamdb-e2e-bin-")
		if binaries.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binaries.dir+string(filepath.Separator),
			"github.com/streamdb/streamdb/cmd/streamdb", "github.com/streamdb/streamdb/cmd/devkafka")
		if out, err := cmd.CombinedOutput(); err != nil {
			binaries.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binaries.err != nil {
		t.Fatal(binaries.err)
	}
	return filepath.Join(binaries.dir, name)
}

// process is a command the test started; its stderr goes to the test log
// when the test fails.
type process struct {
	cmd  *exec.Cmd
	log  *logBuffer
	done chan struct{}
}

// startProcess starts a command and stops it (SIGKILL) when the test ends.
func startProcess(t testing.TB, name string, args ...string) *process {
	t.Helper()
	return startProcessEnv(t, nil, name, args...)
}

// startProcessEnv is startProcess with variables added to the
// environment.
func startProcessEnv(t testing.TB, env []string, name string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(name, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	p := &process{cmd: cmd, log: &logBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s log:\n%s", filepath.Base(name), p.log.String())
		}
	})
	return p
}

// kill sends SIGKILL and waits for the process to end.
func (p *process) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// waitListening waits until addr accepts TCP connections or the process
// exits.
func (p *process) waitListening(t testing.TB, addr string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before listening on %s:\n%s", p.cmd.Path, addr, p.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not listening on %s", p.cmd.Path, addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startStreamdb runs bin/streamdb on a free port with dataDir and returns
// the process and its address.
func startStreamdb(t testing.TB, dataDir string) (*process, string) {
	t.Helper()
	return startStreamdbEnv(t, dataDir, nil)
}

// startStreamdbEnv is startStreamdb with variables added to the
// environment (GOMEMLIMIT).
func startStreamdbEnv(t testing.TB, dataDir string, env []string) (*process, string) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	p := startProcessEnv(t, env, binary(t, "streamdb"), "--listen", addr, "--data-dir", dataDir, "--log-level", "info")
	p.waitListening(t, addr)
	return p, addr
}

// pgURL is the connection string of a streamdb listening on addr.
func pgURL(addr string) string {
	return "postgres://streamdb@" + addr + "/streamdb?sslmode=disable"
}

// startDevkafka runs bin/devkafka on a free port and returns the process
// and the address it reports.
func startDevkafka(t testing.TB, args ...string) (*process, string) {
	t.Helper()
	p := startProcess(t, binary(t, "devkafka"), append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(p.log.String()))
		for sc.Scan() {
			line := sc.Text()
			if _, rest, ok := strings.Cut(line, "addr="); ok && strings.Contains(line, "devkafka listening") {
				return p, strings.Fields(rest)[0]
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("devkafka did not report its address:\n%s", p.log.String())
	return nil, ""
}
