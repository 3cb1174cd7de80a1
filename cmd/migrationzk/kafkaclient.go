package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/monitor"
	"github.com/kraftmigration/zkwriter/internal/quorum"
)

// kafkaFlags say how to reach the KRaft quorum, as kafka-metadata-quorum.sh
// takes it.
type kafkaFlags struct {
	controllers, servers string
	commandConfig        string
}

func (f *kafkaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.controllers, "bootstrap-controller", "", "the KRaft controllers, `host:port[,host:port...]`: each is asked in turn until the quorum's leader answers")
	fs.StringVar(&f.servers, "bootstrap-server", "", "KRaft-mode brokers, `host:port[,host:port...]`, which forward DescribeQuorum to the active controller (ZooKeeper-mode brokers do not serve it)")
	fs.StringVar(&f.commandConfig, "command-config", "", "a Kafka client properties `file` for the quorum's connections: security.protocol, ssl.*, sasl.mechanism, sasl.jaas.config")
}

// configured reports whether a quorum is given.
func (f kafkaFlags) configured() bool { return f.controllers != "" || f.servers != "" }

// check validates the flags; required says one of the bootstrap flags must
// be given.
func (f kafkaFlags) check(required bool) error {
	switch {
	case f.controllers != "" && f.servers != "":
		return usageError{errors.New("--bootstrap-controller and --bootstrap-server: give one of them")}
	case required && !f.configured():
		return usageError{errors.New("no quorum to ask: give --bootstrap-controller (the controllers) or --bootstrap-server (KRaft-mode brokers)")}
	case !f.configured() && f.commandConfig != "":
		return usageError{errors.New("--command-config without --bootstrap-controller or --bootstrap-server")}
	}
	for _, list := range []struct{ flag, value string }{{"--bootstrap-controller", f.controllers}, {"--bootstrap-server", f.servers}} {
		if list.value == "" {
			continue
		}
		for _, a := range strings.Split(list.value, ",") {
			if _, _, err := net.SplitHostPort(a); err != nil {
				return usageError{fmt.Errorf("%s %q: want host:port[,host:port...]", list.flag, list.value)}
			}
		}
	}
	return nil
}

// target is where the flags say to ask.
func (f kafkaFlags) target() quorum.Target {
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	return quorum.Target{Controllers: split(f.controllers), Servers: split(f.servers)}
}

// quorumClient returns a client of the quorum the flags give, nil when
// they give none; --command-config's keys that do not concern the
// connection are listed on stderr.
func (a *app) quorumClient(f kafkaFlags) (*quorum.Client, error) {
	if !f.configured() {
		return nil, nil
	}
	var s quorum.Settings
	if f.commandConfig != "" {
		var err error
		if s, err = quorum.LoadFile(f.commandConfig); err != nil {
			return nil, &kafkaError{err: err}
		}
		if len(s.Ignored) > 0 {
			fmt.Fprintf(a.stderr, "migrationzk: --command-config %s: ignored, as they do not concern the connection: %s\n", f.commandConfig, strings.Join(s.Ignored, ", "))
		}
	}
	c, err := quorum.New(s, f.target(), a.g.timeout)
	if err != nil {
		return nil, &kafkaError{err: err}
	}
	return c, nil
}

// quorumSource is a quorum client as the exporter asks it.
type quorumSource struct{ c *quorum.Client }

func (q quorumSource) DescribeQuorum(ctx context.Context) (monitor.Quorum, error) {
	st, err := q.c.Describe(ctx)
	if err != nil {
		return monitor.Quorum{}, err
	}
	return monitor.Quorum{LeaderID: st.LeaderID, LeaderEpoch: st.LeaderEpoch, HighWatermark: st.HighWatermark}, nil
}

// Kinds of Kafka error in the json output's "error_kind".
const (
	kindKafkaConfig        = "kafka_config"
	kindZooKeeperBroker    = "zookeeper_mode_broker"
	kindNoLeader           = "no_quorum_leader"
	kindClusterAuthz       = "cluster_authorization"
	kindUnsupportedVersion = "unsupported_version"
	kindKafkaAuth          = "kafka_authentication"
	kindKafkaUnreachable   = "kafka_unreachable"
	kindKafka              = "kafka_error"
)

// kafkaError is a failure to ask the quorum, with its kind.
type kafkaError struct{ err error }

func (e *kafkaError) Error() string { return e.err.Error() }
func (e *kafkaError) Unwrap() error { return e.err }

// errorKind names the failure in the json output.
func (e *kafkaError) errorKind() string {
	switch {
	case errors.As(e.err, new(*quorum.ConfigError)):
		return kindKafkaConfig
	case errors.As(e.err, new(*quorum.NotServedError)):
		return kindZooKeeperBroker
	case errors.As(e.err, new(*quorum.NoLeaderError)):
		return kindNoLeader
	case errors.As(e.err, new(*quorum.AuthorizationError)):
		return kindClusterAuthz
	case errors.As(e.err, new(*quorum.UnsupportedVersionError)):
		return kindUnsupportedVersion
	case errors.As(e.err, new(*quorum.AuthenticationError)):
		return kindKafkaAuth
	case errors.As(e.err, new(*quorum.UnreachableError)):
		return kindKafkaUnreachable
	}
	return kindKafka
}

// kindedError is an error that names its json error_kind itself.
type kindedError interface {
	error
	errorKind() string
}
