package sqllogictest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// fakeStreamdb makes the test binary stand in for streamdb when
// SLT_FAKE_STREAMDB is set: it takes streamdb's flags and answers the
// PostgreSQL startup handshake, which is all StartServer needs. With
// SLT_FAKE_STREAMDB=crash it fails at once instead.
func fakeStreamdb() {
	fs := flag.NewFlagSet("streamdb", flag.ExitOnError)
	listen := fs.String("listen", "", "")
	dataDir := fs.String("data-dir", "", "")
	fs.Parse(os.Args[1:])
	if os.Getenv("SLT_FAKE_STREAMDB") == "crash" || *dataDir == "" {
		fmt.Fprintln(os.Stderr, "fake streamdb: boom")
		os.Exit(3)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			os.Exit(1)
		}
		go func() {
			defer c.Close()
			be := pgproto3.NewBackend(c, c)
			if _, err := be.ReceiveStartupMessage(); err != nil {
				return
			}
			be.Send(&pgproto3.AuthenticationOk{})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if be.Flush() != nil {
				return
			}
			be.Receive() // Terminate, or EOF
		}()
	}
}

func init() {
	if os.Getenv("SLT_FAKE_STREAMDB") != "" {
		fakeStreamdb()
	}
}

func TestServerStartRestartStop(t *testing.T) {
	t.Setenv("SLT_FAKE_STREAMDB", "serve")
	ctx := context.Background()
	var notices bytes.Buffer
	srv, err := StartServer(ctx, os.Args[0], &notices)
	if err != nil {
		t.Fatal(err)
	}
	dir := srv.dir
	ping := func(url string) error {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		pg, err := pgconn.Connect(cctx, url)
		if err != nil {
			return err
		}
		return pg.Close(cctx)
	}
	if err := ping(srv.URL()); err != nil {
		t.Fatalf("started server does not answer: %v", err)
	}
	old := srv.URL()
	srv.cmd.Process.Kill()
	<-srv.done
	url, err := srv.Restart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if url == old || ping(url) != nil {
		t.Errorf("restarted server at %s (was %s) does not answer", url, old)
	}
	if !strings.Contains(notices.String(), "streamdb exited") {
		t.Errorf("restart notice = %q", notices.String())
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Stop left %s behind", dir)
	}
}

func TestServerCrashAtStart(t *testing.T) {
	t.Setenv("SLT_FAKE_STREAMDB", "crash")
	_, err := StartServer(context.Background(), os.Args[0], nil)
	if err == nil || !strings.Contains(err.Error(), "fake streamdb: boom") {
		t.Errorf("StartServer error = %v, want the log's last lines", err)
	}
}
