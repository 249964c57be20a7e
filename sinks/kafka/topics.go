package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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
// else the broker's defaults) when they are missing, and waits until
// both have leaders.
func (s *sink) ensureTopics(ctx context.Context, c *conn) error {
	state, err := topicsReady(ctx, c.cl, s.cfg.ProgressTopic, s.cfg.Topic)
	if err != nil {
		return err
	}
	for _, t := range []struct {
		name        string
		partitions  int32
		replication int16
		configs     map[string]*string
	}{
		{s.cfg.ProgressTopic, 1, -1, progressTopicConfig},
		{s.cfg.Topic, brokerDefault(s.cfg.TopicPartitions), int16(brokerDefault(int32(s.cfg.TopicReplicationFactor))), nil},
	} {
		if !errors.Is(state[t.name], kerr.UnknownTopicOrPartition) {
			continue
		}
		_, err := c.adm.CreateTopic(ctx, t.partitions, t.replication, t.configs, t.name)
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("creating topic %q: %w", t.name, err)
		}
		s.log.Info("kafka sink created topic", "created_topic", t.name)
	}
	for state[s.cfg.ProgressTopic] != nil || state[s.cfg.Topic] != nil {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for topics %q and %q: %w (%v)", s.cfg.ProgressTopic, s.cfg.Topic, ctx.Err(), errors.Join(state[s.cfg.ProgressTopic], state[s.cfg.Topic]))
		case <-time.After(50 * time.Millisecond):
		}
		if state, err = topicsReady(ctx, c.cl, s.cfg.ProgressTopic, s.cfg.Topic); err != nil {
			return err
		}
	}
	return nil
}

// topicsReady asks the brokers about topics, directly rather than from
// the client's metadata cache (which the answer refreshes, so that the
// requests that follow see topics just created). For each topic it
// returns nil when every partition has a leader, else what is wrong:
// kerr.UnknownTopicOrPartition for a missing topic.
func topicsReady(ctx context.Context, cl *kgo.Client, topics ...string) (map[string]error, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("fetching metadata: %w", err)
	}
	state := make(map[string]error, len(topics))
	for _, t := range topics {
		state[t] = kerr.UnknownTopicOrPartition
	}
	for _, t := range resp.Topics {
		if t.Topic == nil {
			continue
		}
		err := kerr.ErrorForCode(t.ErrorCode)
		if err == nil && len(t.Partitions) == 0 {
			err = kerr.LeaderNotAvailable
		}
		for _, p := range t.Partitions {
			if perr := kerr.ErrorForCode(p.ErrorCode); perr != nil {
				err = perr
			} else if p.Leader < 0 {
				err = kerr.LeaderNotAvailable
			}
		}
		switch {
		case errors.Is(err, kerr.TopicAuthorizationFailed):
			return nil, fmt.Errorf("topic %q: %w", *t.Topic, err)
		case err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) && !kerr.IsRetriable(err):
			return nil, fmt.Errorf("topic %q: %w", *t.Topic, err)
		}
		state[*t.Topic] = err
	}
	return state, nil
}

// brokerDefault maps an unset (zero) count to -1, the broker's default.
func brokerDefault(n int32) int32 {
	if n == 0 {
		return -1
	}
	return n
}
