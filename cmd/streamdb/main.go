// Command streamdb runs the streamdb server: a streaming SQL database that
// speaks the PostgreSQL wire protocol. main only parses flags, wires the
// engine to the protocol server and supervises both.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // time zone names work without the host's zoneinfo

	"golang.org/x/sync/errgroup"

	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
)

func main() {
	useHugePages()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "streamdb:", err)
		os.Exit(1)
	}
}

func run() error {
	listen := flag.String("listen", "127.0.0.1:6875", "address to accept PostgreSQL connections on")
	dataDir := flag.String("data-dir", "./streamdb-data", "directory for durable state")
	logLevel := flag.String("log-level", "info", "log level: debug, info, warn or error")
	tlsCert := flag.String("tls-cert", "", "PEM certificate for TLS (default with --tls-self-signed: <data-dir>/server.crt)")
	tlsKey := flag.String("tls-key", "", "PEM private key for TLS (default with --tls-self-signed: <data-dir>/server.key)")
	selfSigned := flag.Bool("tls-self-signed", false, "create a self-signed certificate and key on first start if they do not exist")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	front, err := sql.Open(ctx, sql.Config{DataDir: *dataDir, Logger: log})
	if err != nil {
		return err
	}
	defer front.Close()

	tlsCfg, err := tlsConfig(*tlsCert, *tlsKey, *dataDir, *selfSigned)
	if err != nil {
		return err
	}
	srv := pgwire.NewServer(pgwire.Config{Listen: *listen, Engine: front, Logger: log, TLS: tlsCfg})
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return front.Run(gctx) })
	g.Go(func() error { return srv.Run(gctx) })
	err = g.Wait()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	log.Info("stopped")
	return err
}
