// Package zkerr sorts the errors of go-zookeeper requests by what they say
// about a request's fate. The Writer, the operator tool and the torture
// suite all decide with it whether to send a request again.
package zkerr

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// Class is what an error from a request says about the request's fate.
type Class int

const (
	// OK: the request succeeded.
	OK Class = iota
	// Unknown: the request was sent and its fate is unknown, since the
	// connection or session was lost before the reply. A write may or
	// may not have been applied; a read can simply be sent again.
	Unknown
	// NotSent: the request never left the client (no server, or it could
	// not be encoded); sending it again is safe.
	NotSent
	// Rejected: ZooKeeper refused the request for a version, existence or
	// emptiness condition (BadVersion, NodeExists, NoNode, NotEmpty, or a
	// multi failing on one of these).
	Rejected
	// Fatal: ZooKeeper refused the request for a reason that sending it
	// again cannot mend (authorization, invalid arguments or ACL).
	Fatal
)

// String names the class.
func (c Class) String() string {
	switch c {
	case OK:
		return "ok"
	case Unknown:
		return "unknown"
	case NotSent:
		return "not-sent"
	case Rejected:
		return "rejected"
	case Fatal:
		return "fatal"
	}
	return "invalid"
}

// IsAuthRequired reports whether err is ZooKeeper's answer to a request
// sent before the session authenticated, on a server that enforces
// authentication (code -124, which go-zookeeper has no name for; the
// server then closes the connection).
func IsAuthRequired(err error) bool {
	return err != nil && err.Error() == "unknown error: -124"
}

// Classify sorts err. Errors it does not recognise (raw network errors,
// zk.ErrConnectionClosed, zk.ErrSessionExpired, zk.ErrSessionMoved,
// zk.ErrClosing, codes go-zookeeper has no name for) are Unknown: the
// request may or may not have been applied.
func Classify(err error) Class {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, zk.ErrNoServer), errors.Is(err, zk.ErrShortBuffer):
		return NotSent
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists),
		errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrNotEmpty):
		return Rejected
	case IsAuthRequired(err):
		return Fatal
	case errors.Is(err, zk.ErrNoAuth), errors.Is(err, zk.ErrInvalidACL),
		errors.Is(err, zk.ErrAuthFailed), errors.Is(err, zk.ErrBadArguments),
		errors.Is(err, zk.ErrAPIError), errors.Is(err, zk.ErrNoChildrenForEphemerals),
		errors.Is(err, zk.ErrInvalidFlags), errors.Is(err, zk.ErrInvalidPath),
		errors.Is(err, zk.ErrReconfigDisabled):
		return Fatal
	}
	return Unknown
}

// Retryable reports whether a request that failed with err may simply be
// sent again once the client holds a session: its fate is unknown or it
// was never sent. Only reads, and writes whose landing is checked
// afterwards, may be retried on this alone.
func Retryable(err error) bool {
	c := Classify(err)
	return c == Unknown || c == NotSent
}
