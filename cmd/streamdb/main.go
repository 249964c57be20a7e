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
	"time"
	_ "time/tzdata" // time zone names work without the host's zoneinfo

	"golang.org/x/sync/errgroup"

	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/egress"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
)

func main() {
	restrictUmask()
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
	var af authFlags
	flag.StringVar(&af.mode, "auth", "local-trust", "authentication: local-trust (local clients trusted, SCRAM passwords from elsewhere), scram (SCRAM from everyone) or trust (everyone in)")
	flag.BoolVar(&af.insecure, "insecure", false, "allow --auth trust on an address reachable from other hosts")
	flag.StringVar(&af.localNets, "local-nets", "127.0.0.0/8,::1/128", "comma-separated client networks that count as local")
	flag.BoolVar(&af.plaintextRemote, "allow-plaintext-remote", false, "with TLS configured, still admit clients from non-local addresses without TLS")
	flag.BoolVar(&af.cleartext, "tls-cleartext-password", false, "on TLS connections, ask for the password in cleartext instead of SCRAM (for clients without SCRAM)")
	logParams := flag.Bool("log-parameters", false, "with --log-level debug, log the values of statements' parameters (redacted otherwise)")
	maxConns := flag.Int("max-connections", 100, "maximum number of clients connected at once (lowered to what the open-file limit leaves)")
	showVersion := flag.Bool("version", false, "print the version and exit")
	viewState := flag.String("view-state", "persisted", "persisted: views keep their state in the store and restart from it; recomputed: views are recomputed from their inputs on every start")
	cacheMB := flag.Int64("cache-size", engine.DefaultCacheSize>>20, "the store's block cache in MB, through which tables are read")
	allowEgress := flag.String("allow-egress", "", "comma-separated hosts, addresses and CIDR blocks that connections (CREATE CONNECTION) may reach; empty allows all")
	subBuffer := flag.Int64("subscribe-buffer-bytes", engine.DefaultFeedBufferBytes, "changes a SUBSCRIBE may hold for a client that does not read them; past it the subscription ends with an error")
	retain := flag.Duration("retain-history", engine.DefaultRetainHistory, "how far back SUBSCRIBE … AS OF can start (negative: not at all)")
	retainBytes := flag.Int64("retain-history-bytes", engine.DefaultRetainHistoryBytes, "memory for the changes kept for SUBSCRIBE … AS OF")
	flag.Parse()
	if *showVersion {
		fmt.Println("streamdb", versionString())
		return nil
	}
	if *viewState != "persisted" && *viewState != "recomputed" {
		return fmt.Errorf("--view-state: %q is neither persisted nor recomputed", *viewState)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(newRepeatHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	log.Info("streamdb starting", "version", versionString(), "data_dir", *dataDir, "listen", *listen)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	withTLS := *tlsCert != "" || *tlsKey != "" || *selfSigned
	auth, err := authConfig(ctx, af, *listen, withTLS, log)
	if err != nil {
		return err
	}
	if err := prepareDataDir(*dataDir, log); err != nil {
		return err
	}
	lock, err := lockDataDir(*dataDir)
	if err != nil {
		return err
	}
	defer lock.Close()
	fileLimit := raiseFileLimit()
	files := splitFiles(fileLimit, *maxConns)
	if files.lowered {
		log.Warn("the open-file limit leaves room for fewer clients than --max-connections; raise it (ulimit -n) to admit more",
			"open_files", fileLimit, "max_connections", files.connections, "asked", *maxConns)
	}
	allow, err := egress.Parse(*allowEgress)
	if err != nil {
		return err
	}

	// The server listens while the store opens: sessions connect at once
	// and wait for the engine when they need it (see sql.Start).
	opening := time.Now()
	front := sql.Start(ctx, sql.Config{DataDir: *dataDir, Logger: log, LogParameters: *logParams, StorageFiles: files.storage,
		InitialPassword: os.Getenv("STREAMDB_PASSWORD"), Egress: allow,
		RecomputeViews: *viewState == "recomputed", CacheSize: *cacheMB << 20,
		SubscribeBufferBytes: *subBuffer, RetainHistory: *retain, RetainHistoryBytes: *retainBytes})
	defer front.Close()
	auth.MockNonceOf = front.MockNonce

	tlsCfg, err := tlsConfig(*tlsCert, *tlsKey, *dataDir, *selfSigned)
	if err != nil {
		return err
	}
	srv := pgwire.NewServer(pgwire.Config{
		Listen:         *listen,
		Engine:         front,
		Logger:         log,
		TLS:            tlsCfg,
		Auth:           auth,
		Roles:          front,
		MaxConnections: files.connections,
	})
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := front.Wait(gctx); err != nil {
			return err
		}
		log.Info("streamdb started", "version", versionString(), "data_dir", *dataDir, "listen", *listen,
			"tls", tlsCfg != nil, "auth", af.mode, "objects", front.Objects(), "rehydrate_ms", time.Since(opening).Milliseconds(),
			"open_files", fileLimit, "max_connections", files.connections)
		return front.Run(gctx)
	})
	g.Go(func() error { return srv.Run(gctx) })
	err = g.Wait()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	log.Info("stopped")
	return err
}
