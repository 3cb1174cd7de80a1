package sasl

import "sync/atomic"

// Stats counts the SASL exchanges of the dialers made WithStats, and so of
// the clients zkconn.Open made with zkconn.WithSASLStats. It is safe for
// concurrent use; the zero value is ready.
type Stats struct {
	succeeded, failed, reauthFailed atomic.Int64
}

// Succeeded returns how many exchanges authenticated a connection.
func (s *Stats) Succeeded() int64 { return s.succeeded.Load() }

// Failed returns how many exchanges failed, for any reason, interrupted
// connections included.
func (s *Stats) Failed() int64 { return s.failed.Load() }

// ReauthFailed returns how many of the failed exchanges were refused
// (an *Error) on a client that had authenticated before: a session
// that lost its authentication on a reconnect. Its requests are held
// back; none is sent unauthenticated.
func (s *Stats) ReauthFailed() int64 { return s.reauthFailed.Load() }
