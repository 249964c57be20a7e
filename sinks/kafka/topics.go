package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// progressTopicConfig is the progress topic's configuration when the
// sink creates it, as Materialize's: compacted (one record per sink is
// all that matters) and never deleted by age or size (deleting a sink's
// last progress record would make it start over).
var progressTopicConfig = map[string]*string{
	"cleanup.policy":  kadm.StringPtr("compact"),
	"retention.ms":    kadm.StringPtr("-1"),
	"retention.bytes": kadm.StringPtr("-1"),
}

// ensureTopics creates the progress topic (one partition) and the data
// topic (TopicPartitions partitions, TopicReplicationFactor replicas,
// else the broker's defaults) when they are missing.
func (s *sink) ensureTopics(ctx context.Context, adm *kadm.Client) error {
	details, err := adm.ListTopics(ctx, s.cfg.ProgressTopic, s.cfg.Topic)
	if err != nil {
		return fmt.Errorf("listing topics: %w", err)
	}
	if err := createTopic(ctx, adm, details, s.cfg.ProgressTopic, 1, -1, progressTopicConfig); err != nil {
		return err
	}
	return createTopic(ctx, adm, details, s.cfg.Topic, brokerDefault(s.cfg.TopicPartitions), int16(brokerDefault(int32(s.cfg.TopicReplicationFactor))), nil)
}

func createTopic(ctx context.Context, adm *kadm.Client, details kadm.TopicDetails, topic string, partitions int32, replication int16, configs map[string]*string) error {
	if d, ok := details[topic]; ok {
		switch {
		case d.Err == nil:
			return nil
		case !errors.Is(d.Err, kerr.UnknownTopicOrPartition):
			return fmt.Errorf("topic %q: %w", topic, d.Err)
		}
	}
	_, err := adm.CreateTopic(ctx, partitions, replication, configs, topic)
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("creating topic %q: %w", topic, err)
	}
	return nil
}

// brokerDefault maps an unset (zero) count to -1, the broker's default.
func brokerDefault(n int32) int32 {
	if n == 0 {
		return -1
	}
	return n
}
