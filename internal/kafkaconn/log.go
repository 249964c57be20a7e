package kafkaconn

import (
	"context"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Logger routes franz-go's logs to l. franz-go's info level narrates
// every metadata refresh and connection, so it becomes debug; its
// warnings and errors stay what they are. Errors are redacted (Redact).
func Logger(l *slog.Logger) kgo.Logger { return kgoLogger{l} }

type kgoLogger struct{ l *slog.Logger }

func (k kgoLogger) Level() kgo.LogLevel {
	ctx := context.Background()
	switch {
	case k.l.Enabled(ctx, slog.LevelDebug):
		return kgo.LogLevelDebug
	case k.l.Enabled(ctx, slog.LevelWarn):
		return kgo.LogLevelWarn
	case k.l.Enabled(ctx, slog.LevelError):
		return kgo.LogLevelError
	}
	return kgo.LogLevelNone
}

func (k kgoLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	lvl := slog.LevelDebug
	switch level {
	case kgo.LogLevelError:
		lvl = slog.LevelError
	case kgo.LogLevelWarn:
		lvl = slog.LevelWarn
	}
	for i, v := range keyvals {
		if err, ok := v.(error); ok {
			keyvals[i] = Redact(err)
		}
	}
	k.l.Log(context.Background(), lvl, "kafka client", append([]any{"event", msg}, keyvals...)...)
}
