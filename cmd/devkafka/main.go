// Command devkafka is a development Kafka broker: franz-go's in-process
// kfake cluster behind a real TCP listener, so that streamdb's Kafka
// sources and sinks, kcat and any Kafka client can be tried without a JVM.
//
//	devkafka --listen 127.0.0.1:9092 [--partitions 3] [--data-dir DIR] [--log-level info]
//
// It is one broker that creates a topic with --partitions partitions the
// first time a client asks for it with auto-creation allowed (producers
// such as kcat do; franz-go clients need kgo.AllowAutoTopicCreation), keeps
// data in memory unless --data-dir is given, logs with slog to stderr and
// shuts down cleanly on SIGINT or SIGTERM. It is not a production broker:
// one node, no replication.
//
// Durability: without --data-dir a restart loses every topic (a topic
// created again under the same name gets a new topic ID, which streamdb's
// sources notice). With --data-dir, what the broker acknowledged survives
// its process being killed (kill -9): records and topics are written to
// the directory before a produce or create is answered (auto-created
// topics too, which kfake itself persists only at a clean shutdown; see
// persistAutoCreate). They reach the operating system, not the disk: a
// crash of the machine may lose the latest records.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "devkafka:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. ready, if not nil, receives the listen
// address once the broker accepts connections.
func run(ctx context.Context, args []string, stderr io.Writer, ready chan<- string) error {
	fs := flag.NewFlagSet("devkafka", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:9092", "address to listen on, host:port (port 0 picks a free one)")
	partitions := fs.Int("partitions", 3, "partitions of auto-created topics")
	dataDir := fs.String("data-dir", "", "directory to persist topics in (default: memory only)")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *partitions < 1 {
		return fmt.Errorf("--partitions must be at least 1, not %d", *partitions)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	opts := []kfake.Opt{
		kfake.Ports(port),
		// kfake asks for one listener per broker; hand it ours.
		kfake.ListenFn(func(string, string) (net.Listener, error) { return ln, nil }),
		kfake.DefaultNumPartitions(*partitions),
		kfake.WithLogger(kfakeLogger{log}),
	}
	if *dataDir != "" {
		opts = append(opts, kfake.DataDir(*dataDir))
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		ln.Close()
		return err
	}
	persistAutoCreate(cluster, int32(*partitions))
	addr := ln.Addr().String()
	log.Info("devkafka listening", "addr", addr, "partitions", *partitions, "data_dir", *dataDir)
	if ready != nil {
		ready <- addr
	}
	<-ctx.Done()
	log.Info("devkafka stopping")
	cluster.Close()
	log.Info("devkafka stopped")
	return nil
}

// persistAutoCreate creates the topics a metadata request with
// auto-creation allowed names and the cluster lacks, through the cluster's
// CreateTopic, before the request is answered. kfake's own auto-creation
// keeps a new topic in memory until a clean shutdown writes it out, so a
// killed broker came back without the topics producers had created, and
// without their records.
func persistAutoCreate(cluster *kfake.Cluster, partitions int32) {
	cluster.ControlKey(int16(kmsg.Metadata), func(req kmsg.Request) (kmsg.Response, error, bool) {
		m, ok := req.(*kmsg.MetadataRequest)
		if !ok || !m.AllowAutoTopicCreation {
			return nil, nil, false
		}
		var names []string
		for _, t := range m.Topics {
			if t.Topic != nil && t.TopicID == [16]byte{} {
				names = append(names, *t.Topic)
			}
		}
		if len(names) == 0 {
			return nil, nil, false
		}
		// CreateTopic goes through the cluster's own loop, which this
		// control function holds until it sleeps.
		cluster.SleepControl(func() {
			for _, name := range names {
				_ = cluster.CreateTopic(name, partitions, nil) // an existing topic stays as it is
			}
		})
		return nil, nil, false
	})
}

// kfakeLogger routes kfake's printf-style logs to slog. kfake's info level
// narrates requests, so it is logged at debug.
type kfakeLogger struct{ l *slog.Logger }

func (k kfakeLogger) Logf(level kfake.LogLevel, format string, args ...any) {
	lvl := slog.LevelDebug
	switch level {
	case kfake.LogLevelError:
		lvl = slog.LevelError
	case kfake.LogLevelWarn:
		lvl = slog.LevelWarn
	}
	ctx := context.Background()
	if k.l.Enabled(ctx, lvl) {
		k.l.Log(ctx, lvl, "kfake", "event", fmt.Sprintf(format, args...))
	}
}
