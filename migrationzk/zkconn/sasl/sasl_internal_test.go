package sasl

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// A refusal makes later dials fail at once, without dialling; an
// unreachable KDC or an interrupted exchange does not.
func TestSASLRefusalIsSticky(t *testing.T) {
	stats := &Stats{}
	client := &clientState{mech: newDigestMechanism("kafka", "x"), timeout: time.Second, log: slog.New(discardHandler{}), stats: stats}
	dials := 0
	dial := client.dialer(func(string, string, time.Duration) (net.Conn, error) {
		dials++
		return nil, errors.New("dialled")
	})
	for _, transient := range []error{
		&Error{Mechanism: "GSSAPI", Failure: KDCUnreachable, Err: errors.New("no KDC")},
		io.ErrUnexpectedEOF,
	} {
		client.record("zk1:2181", transient)
		if _, err := dial("tcp", "zk1:2181", time.Second); err == nil || err.Error() != "dialled" {
			t.Fatalf("after %v: %v; want a dial", transient, err)
		}
	}
	client.record("zk1:2181", nil)
	refused := &Error{Mechanism: digestMD5, Failure: Rejected, Err: errors.New("AUTHFAILED")}
	client.record("zk1:2181", refused)
	before := dials
	if _, err := dial("tcp", "zk1:2181", time.Second); err != refused || dials != before {
		t.Fatalf("after a refusal: %v, %d dials; want the refusal, no dial", err, dials-before)
	}
	if stats.Succeeded() != 1 || stats.Failed() != 3 || stats.ReauthFailed() != 1 {
		t.Fatalf("stats %d/%d/%d; want 1 succeeded, 3 failed, 1 refused re-authentication", stats.Succeeded(), stats.Failed(), stats.ReauthFailed())
	}
	if refused.Transient() || !(&Error{Failure: KDCUnreachable}).Transient() {
		t.Fatal("Transient")
	}
}
