package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// deadLetterCheckTimeout bounds EnsureDeadLetterTopic.
const deadLetterCheckTimeout = 15 * time.Second

// EnsureDeadLetterTopic makes sure, when a source is created, that its
// dead letter topic exists: a topic that is missing is created with the
// brokers' default partitions and replication, and created reports so.
// Producing to a missing topic would otherwise fail at every bad record
// (brokers rarely create topics for producers), and dead letters would
// reach only the log. A topic that cannot be checked or created refuses
// the CREATE SOURCE with the reason.
func EnsureDeadLetterTopic(ctx context.Context, cfg Config) (created bool, err error) {
	topic := cfg.DeadLetterTopic
	if topic == "" {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, deadLetterCheckTimeout)
	defer cancel()
	cl, err := kgo.NewClient(cfg.ClientOpts(cfg.Logger)...)
	if err != nil {
		return false, pgerr.Wrap(err, pgerr.InvalidParameterValue, "invalid kafka client configuration: %v", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topics, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return false, pgerr.Wrap(err, pgerr.ConnectionException, "could not check dead letter topic %q on %v: %v", topic, cfg.Brokers, err).
			WithHint("A source with a DEAD LETTER TOPIC is created only once its topic is known to exist; make the brokers reachable and try again.")
	}
	if topics.Has(topic) {
		if terr := topics[topic].Err; terr != nil && !errors.Is(terr, kerr.UnknownTopicOrPartition) {
			return false, pgerr.Wrap(terr, pgerr.ConnectionException, "could not check dead letter topic %q: %v", topic, terr)
		}
		if topics[topic].Err == nil {
			return false, nil
		}
	}
	resp, err := adm.CreateTopic(ctx, -1, -1, nil, topic)
	if err == nil && resp.Err != nil && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
		err = resp.Err
	}
	if err != nil {
		return false, pgerr.Wrap(err, pgerr.UndefinedObject, "dead letter topic %q does not exist and could not be created: %v", topic, err).
			WithHint("Create the topic, or grant streamdb's user the right to create it.")
	}
	return resp.Err == nil, nil
}

// DeadLetterTopicCreated is the notice CREATE SOURCE sends when it
// created the dead letter topic.
func DeadLetterTopicCreated(topic string) string {
	return fmt.Sprintf("created dead letter topic %q with the brokers' default partitions and replication", topic)
}
