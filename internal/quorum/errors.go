package quorum

import (
	"fmt"
	"strings"
)

// NotServedError: the node does not serve DescribeQuorum: a ZooKeeper-mode
// broker, which has no listener for it (or a Kafka before 3.3).
type NotServedError struct {
	Addr string
}

func (e *NotServedError) Error() string {
	return fmt.Sprintf("%s does not serve DescribeQuorum (apiKey 55): a ZooKeeper-mode broker, which cannot answer it during a migration (or a Kafka before 3.3); ask a controller (--bootstrap-controller)", e.Addr)
}

// NoLeaderError: every controller answered NOT_LEADER_OR_FOLLOWER: none of
// them leads the quorum.
type NoLeaderError struct {
	Addrs []string
}

func (e *NoLeaderError) Error() string {
	return fmt.Sprintf("no controller among %s leads the quorum: each answered NOT_LEADER_OR_FOLLOWER; give every controller (controller.quorum.voters or controller.quorum.bootstrap.servers), or ask again after an election", strings.Join(e.Addrs, ", "))
}

// AuthorizationError: the node refused DescribeQuorum with
// CLUSTER_AUTHORIZATION_FAILED.
type AuthorizationError struct {
	Addr    string
	Message string
}

func (e *AuthorizationError) Error() string {
	s := fmt.Sprintf("%s refused DescribeQuorum: CLUSTER_AUTHORIZATION_FAILED: the principal needs DESCRIBE on the CLUSTER resource (kafka-acls.sh --add --allow-principal User:<name> --operation Describe --cluster)", e.Addr)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// UnsupportedVersionError: the node's versions of DescribeQuorum are not
// this client's (0 to Ours), or it answered UNSUPPORTED_VERSION; Min and
// Max are -1 when it did not say which it supports.
type UnsupportedVersionError struct {
	Addr           string
	Min, Max, Ours int16
}

func (e *UnsupportedVersionError) Error() string {
	if e.Min < 0 {
		return fmt.Sprintf("%s answered DescribeQuorum with UNSUPPORTED_VERSION (this client sends versions 0 to %d)", e.Addr, e.Ours)
	}
	return fmt.Sprintf("%s serves DescribeQuorum versions %d to %d, this client versions 0 to %d: an unsupported version", e.Addr, e.Min, e.Max, e.Ours)
}

// AuthenticationError: SASL authentication with the node failed.
type AuthenticationError struct {
	Addr string
	Err  error
}

func (e *AuthenticationError) Error() string {
	return fmt.Sprintf("SASL authentication with %s failed: %v", e.Addr, e.Err)
}

func (e *AuthenticationError) Unwrap() error { return e.Err }

// UnreachableError: no answer from the node: it could not be reached, the
// TLS handshake failed, or the connection closed.
type UnreachableError struct {
	Addr string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("no answer from %s: %v", e.Addr, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// AnswerError: the node answered DescribeQuorum with another error.
type AnswerError struct {
	Addr    string
	Err     error
	Message string
}

func (e *AnswerError) Error() string {
	s := fmt.Sprintf("%s answered DescribeQuorum with %v", e.Addr, e.Err)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (e *AnswerError) Unwrap() error { return e.Err }
