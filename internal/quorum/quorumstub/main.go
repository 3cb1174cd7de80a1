// Command quorumstub serves DescribeQuorum (apiKey 55) the way a Kafka 3.9
// KRaft quorum does, for the tests of migrationzk lag and monitor: no
// Kafka runs on these machines. It runs franz-go's kfake, an in-process
// fake cluster without DescribeQuorum, with a control hook that answers
// key 55 by Kafka 3.9's schema (versions 0 to 2) and an ApiVersions that
// advertises it: each of its nodes is a controller, one of them the
// quorum's leader; the others answer NOT_LEADER_OR_FOLLOWER.
//
// It serves plaintext, TLS (optionally asking for client certificates) and
// SASL PLAIN and SCRAM-SHA-256/512 (kfake's own). kfake's control hooks
// run before its SASL check, so the stub's listener does what a Kafka
// SASL listener does on the wire: a DescribeQuorum before the
// authentication completes closes the connection, and a failed
// authentication is answered with SASL_AUTHENTICATION_FAILED before the
// connection closes.
//
// Once serving it prints one line of JSON, {"addrs":[...]}, the nodes'
// addresses, and runs until stdin closes or it is signalled.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// options are the stub's flags.
type options struct {
	nodes      int
	leaderNode int
	mode       string
	leaderID   int
	epoch      int
	hw         int64
	voters     string
	versions   string
	tlsCert    string
	tlsKey     string
	clientCA   string
	users      map[string][]string // mechanism to user:password
}

// Modes of the stub.
const (
	modeController = "controller" // the leader answers, the others NOT_LEADER_OR_FOLLOWER
	modeZKBroker   = "zkbroker"   // DescribeQuorum not advertised, as a ZooKeeper-mode broker
	modeDeny       = "deny"       // CLUSTER_AUTHORIZATION_FAILED
)

func main() {
	o := options{users: map[string][]string{}}
	flag.IntVar(&o.nodes, "nodes", 3, "how many nodes (controllers) to run")
	flag.IntVar(&o.leaderNode, "leader-node", 0, "the index of the node that leads the quorum; -1 for none")
	flag.StringVar(&o.mode, "mode", modeController, "controller, zkbroker or deny")
	flag.IntVar(&o.leaderID, "leader-id", 3000, "the leader's id")
	flag.IntVar(&o.epoch, "leader-epoch", 7, "the leader's epoch")
	flag.Int64Var(&o.hw, "hw", 150, "the high watermark")
	flag.StringVar(&o.voters, "voters", "3000,3001,3002", "the voters' ids")
	flag.StringVar(&o.versions, "versions", "0-2", "the DescribeQuorum versions to advertise, min-max")
	flag.StringVar(&o.tlsCert, "tls-cert", "", "serve TLS with this PEM certificate chain")
	flag.StringVar(&o.tlsKey, "tls-key", "", "the PEM key of -tls-cert")
	flag.StringVar(&o.clientCA, "tls-client-ca", "", "ask for client certificates signed by the CAs of this PEM file")
	for _, m := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		flag.Func(strings.ToLower(m), "a SASL "+m+" user, user:password (repeatable)", func(v string) error {
			o.users[m] = append(o.users[m], v)
			return nil
		})
	}
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "quorumstub:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	keys, err := kfakeKeys()
	if err != nil {
		return err
	}
	tlsConfig, err := serverTLS(o)
	if err != nil {
		return err
	}
	opts := []kfake.Opt{kfake.NumBrokers(o.nodes), kfake.ListenFn(gatedListen(tlsConfig, len(o.users) > 0))}
	if len(o.users) > 0 {
		opts = append(opts, kfake.EnableSASL())
		for m, users := range o.users {
			for _, u := range users {
				user, pass, _ := strings.Cut(u, ":")
				opts = append(opts, kfake.Superuser(m, user, pass))
			}
		}
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := install(c, o, keys); err != nil {
		return err
	}
	if err := json.NewEncoder(os.Stdout).Encode(map[string][]string{"addrs": c.ListenAddrs()}); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	<-ctx.Done()
	return nil
}

// kfakeKeys returns the API keys kfake advertises, asked of a throwaway
// plaintext cluster.
func kfakeKeys() ([]kmsg.ApiVersionsResponseApiKey, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "quorumstub", "1"
	kresp, err := cl.SeedBrokers()[0].Request(context.Background(), req)
	if err != nil {
		return nil, fmt.Errorf("ask kfake its API versions: %w", err)
	}
	resp := kresp.(*kmsg.ApiVersionsResponse)
	if resp.ErrorCode != 0 || len(resp.ApiKeys) == 0 {
		return nil, fmt.Errorf("kfake's ApiVersions: error code %d, %d keys", resp.ErrorCode, len(resp.ApiKeys))
	}
	return resp.ApiKeys, nil
}

// install adds the control hooks of the mode.
func install(c *kfake.Cluster, o options, keys []kmsg.ApiVersionsResponseApiKey) error {
	if o.mode == modeZKBroker {
		return nil
	}
	lo, hi, ok := strings.Cut(o.versions, "-")
	minV, err1 := strconv.Atoi(lo)
	maxV, err2 := strconv.Atoi(hi)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("-versions %q: want min-max", o.versions)
	}
	voters, err := parseIDs(o.voters)
	if err != nil {
		return err
	}
	c.ControlKey(kmsg.ApiVersions.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return apiVersions(kreq.(*kmsg.ApiVersionsRequest), keys, int16(minV), int16(maxV)), nil, true
	})
	c.ControlKey(kmsg.DescribeQuorum.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return describeQuorum(kreq.(*kmsg.DescribeQuorumRequest), o, voters, int(c.CurrentNode())), nil, true
	})
	return nil
}

// apiVersions answers ApiVersions with kfake's keys and DescribeQuorum's.
func apiVersions(req *kmsg.ApiVersionsRequest, keys []kmsg.ApiVersionsResponseApiKey, minV, maxV int16) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
	for _, k := range keys {
		if k.ApiKey != kmsg.DescribeQuorum.Int16() {
			resp.ApiKeys = append(resp.ApiKeys, k)
		}
	}
	k := kmsg.NewApiVersionsResponseApiKey()
	k.ApiKey, k.MinVersion, k.MaxVersion = kmsg.DescribeQuorum.Int16(), minV, maxV
	resp.ApiKeys = append(resp.ApiKeys, k)
	return resp
}

// describeQuorum answers as Kafka 3.9's controllers do: the leader
// describes __cluster_metadata partition 0; a controller that does not
// lead answers NOT_LEADER_OR_FOLLOWER at the top level; an unauthorized
// principal gets CLUSTER_AUTHORIZATION_FAILED at the top level.
func describeQuorum(req *kmsg.DescribeQuorumRequest, o options, voters []int32, node int) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DescribeQuorumResponse)
	switch {
	case o.mode == modeDeny:
		resp.ErrorCode = 31 // CLUSTER_AUTHORIZATION_FAILED
		return resp
	case node != o.leaderNode:
		resp.ErrorCode = 6 // NOT_LEADER_OR_FOLLOWER
		msg := "not the leader"
		resp.ErrorMessage = &msg
		return resp
	}
	t := kmsg.NewDescribeQuorumResponseTopic()
	t.Topic = "__cluster_metadata"
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.LeaderID, p.LeaderEpoch, p.HighWatermark = int32(o.leaderID), int32(o.epoch), o.hw
	for i, id := range voters {
		r := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
		r.ReplicaID, r.LogEndOffset = id, o.hw-int64(i)
		r.LastFetchTimestamp, r.LastCaughtUpTimestamp = 1729500000000, 1729500000000
		r.ReplicaDirectoryID[0] = byte(i + 1)
		p.CurrentVoters = append(p.CurrentVoters, r)
		n := kmsg.NewDescribeQuorumResponseNode()
		n.NodeID = id
		l := kmsg.NewDescribeQuorumResponseNodeListener()
		l.Name, l.Host, l.Port = "CONTROLLER", "127.0.0.1", uint16(9093+i)
		n.Listeners = append(n.Listeners, l)
		resp.Nodes = append(resp.Nodes, n)
	}
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	return resp
}

func parseIDs(s string) ([]int32, error) {
	var ids []int32
	for _, f := range strings.Split(s, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("-voters %q: %w", s, err)
		}
		ids = append(ids, int32(id))
	}
	return ids, nil
}

// serverTLS returns the TLS configuration of the flags, nil for none.
func serverTLS(o options) (*tls.Config, error) {
	if o.tlsCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
	if err != nil {
		return nil, err
	}
	config := &tls.Config{Certificates: []tls.Certificate{cert}}
	if o.clientCA != "" {
		pem, err := os.ReadFile(o.clientCA)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("-tls-client-ca: no certificates")
		}
		config.ClientCAs, config.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return config, nil
}

// gatedListen returns kfake's listen function: TCP on the address kfake
// asks for, TLS over it when configured, and each connection gated as a
// SASL listener gates it when sasl is set.
func gatedListen(config *tls.Config, sasl bool) func(network, address string) (net.Listener, error) {
	return func(network, address string) (net.Listener, error) {
		ln, err := net.Listen(network, address)
		if err != nil {
			return nil, err
		}
		if config != nil {
			ln = tls.NewListener(ln, config)
		}
		if !sasl {
			return ln, nil
		}
		return &gatedListener{Listener: ln}, nil
	}
}
