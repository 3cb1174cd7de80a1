// Package quorum asks a KRaft quorum for the state of its metadata log
// with DescribeQuorum (apiKey 55), through franz-go's kgo and kmsg: the
// leader, its epoch, the high watermark, and each voter's and observer's
// log end offset. It reads the Kafka client properties
// kafka-metadata-quorum.sh takes with --command-config for TLS and SASL.
//
// Controllers answer DescribeQuorum only while they lead the quorum (the
// others answer NOT_LEADER_OR_FOLLOWER), so a Client asks each in turn
// until the leader answers; KRaft-mode brokers forward it to the active
// controller. ZooKeeper-mode brokers do not serve it at all.
package quorum

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataTopic is the KRaft metadata log's topic; its partition 0 is
// the one DescribeQuorum describes.
const metadataTopic = "__cluster_metadata"

// Target is where to ask: the controllers, or KRaft-mode brokers.
type Target struct {
	// Controllers are --bootstrap-controller's addresses, host:port.
	Controllers []string
	// Servers are --bootstrap-server's: KRaft-mode brokers.
	Servers []string
}

// Replica is a voter or an observer of the quorum.
type Replica struct {
	ID           int32 `json:"id"`
	LogEndOffset int64 `json:"log_end_offset"`
	// LastFetchTimestamp and LastCaughtUpTimestamp are Unix
	// milliseconds, -1 when unknown (version 0 answers carry neither).
	LastFetchTimestamp    int64 `json:"last_fetch_timestamp"`
	LastCaughtUpTimestamp int64 `json:"last_caught_up_timestamp"`
}

// State is the quorum's answer.
type State struct {
	// Addr is the node that answered; Version the version of the answer.
	Addr          string
	Version       int16
	LeaderID      int32
	LeaderEpoch   int32
	HighWatermark int64
	Voters        []Replica
	Observers     []Replica
}

// Client asks a quorum with DescribeQuorum. It is safe for concurrent
// use; Close releases its connections.
type Client struct {
	// nodes are one kgo client per address: kgo sends a plain request to
	// a client's seed without asking for Metadata, which controllers do
	// not serve.
	nodes       []*kgo.Client
	addrs       []string
	controllers bool

	mu sync.Mutex
	// first is the index of the node that answered last, asked first
	// next time.
	first int
}

// New returns a Client of t with the settings s; it connects on the first
// Describe. Exactly one of t's lists must be given.
func New(s Settings, t Target, dialTimeout time.Duration) (*Client, error) {
	c := &Client{addrs: t.Controllers, controllers: true}
	switch {
	case len(t.Controllers) > 0 && len(t.Servers) > 0:
		return nil, errors.New("quorum: give controllers or servers, not both")
	case len(t.Servers) > 0:
		c.addrs, c.controllers = t.Servers, false
	case len(t.Controllers) == 0:
		return nil, errors.New("quorum: no controller or server to ask")
	}
	opts := []kgo.Opt{kgo.ClientID("migrationzk"), kgo.DialTimeout(dialTimeout), kgo.RequestRetries(0)}
	if s.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(s.TLS))
	}
	if s.SASL != nil {
		opts = append(opts, kgo.SASL(s.SASL))
	}
	for _, addr := range c.addrs {
		cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(addr))...)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("quorum: %s: %w", addr, err)
		}
		c.nodes = append(c.nodes, cl)
	}
	return c, nil
}

// Close closes the client's connections.
func (c *Client) Close() {
	for _, cl := range c.nodes {
		cl.Close()
	}
}

// Describe asks each node in turn, the one that answered last first,
// until one describes the quorum. Controllers that are not the leader
// answer NOT_LEADER_OR_FOLLOWER and the next is asked; so is the next node
// after any other failure. The error, when none answers, is that of the
// first node that failed otherwise than by not leading, or a
// *NoLeaderError when every one answered so.
func (c *Client) Describe(ctx context.Context) (State, error) {
	c.mu.Lock()
	first := c.first
	c.mu.Unlock()
	var firstErr error
	for k := range c.nodes {
		i := (first + k) % len(c.nodes)
		st, err := c.ask(ctx, c.nodes[i], c.addrs[i])
		if err == nil {
			c.mu.Lock()
			c.first = i
			c.mu.Unlock()
			return st, nil
		}
		if ctx.Err() != nil {
			return State{}, err
		}
		if !errors.Is(err, kerr.NotLeaderForPartition) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return State{}, firstErr
	}
	return State{}, &NoLeaderError{Addrs: c.addrs}
}

// ask sends DescribeQuorum to one node, through its kgo client.
func (c *Client) ask(ctx context.Context, cl *kgo.Client, addr string) (State, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	topic := kmsg.NewDescribeQuorumRequestTopic()
	topic.Topic = metadataTopic
	topic.Partitions = []kmsg.DescribeQuorumRequestTopicPartition{kmsg.NewDescribeQuorumRequestTopicPartition()}
	req.Topics = []kmsg.DescribeQuorumRequestTopic{topic}
	kresp, err := cl.Request(ctx, seedRequest{req})
	if err != nil {
		return State{}, c.requestError(ctx, cl, addr, err)
	}
	resp := kresp.(*kmsg.DescribeQuorumResponse)
	if err := answerError(addr, resp.ErrorCode, resp.ErrorMessage); err != nil {
		return State{}, err
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if t.Topic != metadataTopic || p.Partition != 0 {
				continue
			}
			if err := answerError(addr, p.ErrorCode, p.ErrorMessage); err != nil {
				return State{}, err
			}
			return State{Addr: addr, Version: resp.Version, LeaderID: p.LeaderID, LeaderEpoch: p.LeaderEpoch,
				HighWatermark: p.HighWatermark, Voters: replicas(p.CurrentVoters), Observers: replicas(p.Observers)}, nil
		}
	}
	return State{}, &AnswerError{Addr: addr, Err: fmt.Errorf("the answer does not describe %s partition 0", metadataTopic)}
}

func replicas(in []kmsg.DescribeQuorumResponseTopicPartitionReplicaState) []Replica {
	out := make([]Replica, len(in))
	for i, r := range in {
		out[i] = Replica{ID: r.ReplicaID, LogEndOffset: r.LogEndOffset, LastFetchTimestamp: r.LastFetchTimestamp, LastCaughtUpTimestamp: r.LastCaughtUpTimestamp}
	}
	return out
}

// requestError explains a request that got no answer. kgo refuses to send
// a request the node's ApiVersions does not cover ("broker is too old");
// ApiVersions, asked again, then tells a node that does not serve
// DescribeQuorum (a ZooKeeper-mode broker) from one whose versions of it
// are not this client's.
func (c *Client) requestError(ctx context.Context, cl *kgo.Client, addr string, err error) error {
	if !strings.Contains(err.Error(), "broker is too old") {
		if errors.Is(err, kerr.SaslAuthenticationFailed) || errors.Is(err, kerr.IllegalSaslState) || errors.Is(err, kerr.UnsupportedSaslMechanism) {
			return &AuthenticationError{Addr: addr, Err: err}
		}
		return &UnreachableError{Addr: addr, Err: err}
	}
	kresp, verr := cl.Request(ctx, kmsg.NewPtrApiVersionsRequest())
	if verr != nil {
		return &UnreachableError{Addr: addr, Err: err}
	}
	for _, k := range kresp.(*kmsg.ApiVersionsResponse).ApiKeys {
		if k.ApiKey == kmsg.DescribeQuorum.Int16() {
			return &UnsupportedVersionError{Addr: addr, Min: k.MinVersion, Max: k.MaxVersion, Ours: kmsg.NewPtrDescribeQuorumRequest().MaxVersion()}
		}
	}
	return &NotServedError{Addr: addr}
}

// answerError returns the error of an error code in an answer, nil for
// none.
func answerError(addr string, code int16, message *string) error {
	err := kerr.ErrorForCode(code)
	if err == nil {
		return nil
	}
	msg := ""
	if message != nil {
		msg = *message
	}
	switch {
	case errors.Is(err, kerr.NotLeaderForPartition):
		return &AnswerError{Addr: addr, Err: err, Message: msg}
	case errors.Is(err, kerr.ClusterAuthorizationFailed):
		return &AuthorizationError{Addr: addr, Message: msg}
	case errors.Is(err, kerr.UnsupportedVersion):
		return &UnsupportedVersionError{Addr: addr, Min: -1, Max: -1, Ours: kmsg.NewPtrDescribeQuorumRequest().MaxVersion()}
	}
	return &AnswerError{Addr: addr, Err: err, Message: msg}
}

// seedRequest is DescribeQuorum without its mark of an admin request:
// kgo sends admin requests to the controller Metadata names, which
// controllers do not serve, and a plain request to the client's seed.
type seedRequest struct {
	r *kmsg.DescribeQuorumRequest
}

func (s seedRequest) Key() int16                  { return s.r.Key() }
func (s seedRequest) MaxVersion() int16           { return s.r.MaxVersion() }
func (s seedRequest) SetVersion(v int16)          { s.r.SetVersion(v) }
func (s seedRequest) GetVersion() int16           { return s.r.GetVersion() }
func (s seedRequest) IsFlexible() bool            { return s.r.IsFlexible() }
func (s seedRequest) AppendTo(b []byte) []byte    { return s.r.AppendTo(b) }
func (s seedRequest) ReadFrom(b []byte) error     { return s.r.ReadFrom(b) }
func (s seedRequest) ResponseKind() kmsg.Response { return s.r.ResponseKind() }
