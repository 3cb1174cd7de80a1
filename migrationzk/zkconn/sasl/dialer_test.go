package sasl_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// untypedMechanism is a mechanism whose errors are not *sasl.Error: it
// fails in Authenticate, or refuses the server's first reply.
type untypedMechanism struct{ failAuthenticate bool }

func (untypedMechanism) Name() string { return "UNTYPED" }

func (m untypedMechanism) Authenticate(context.Context, string) (sasl.Exchange, []byte, error) {
	if m.failAuthenticate {
		return nil, nil, errors.New("no credentials")
	}
	return untypedExchange{}, []byte{}, nil
}

type untypedExchange struct{}

func (untypedExchange) Challenge([]byte) (bool, []byte, error) {
	return false, nil, errors.New("a challenge it cannot answer")
}

// Fault: a mechanism's own errors, not *sasl.Error, on the client's side
// and on the server's reply. Each fails Open at once as a *sasl.Error
// (ClientFailure, ServerInvalid) after one dial, as a refusal does.
func TestUntypedMechanismErrors(t *testing.T) {
	srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"))
	for _, c := range []struct {
		mech sasl.Mechanism
		want sasl.Failure
	}{
		{untypedMechanism{failAuthenticate: true}, sasl.ClientFailure},
		{untypedMechanism{}, sasl.ServerInvalid},
	} {
		faults := zktest.NewFaultDialer(t)
		faults.Dialer = srv.Dialer()
		err := securitytest.OpenFails(t, srv.Servers, zkconn.WithDialer(faults.Dial), zkconn.WithSASL(c.mech))
		var se *sasl.Error
		if !errors.As(err, &se) || se.Failure != c.want || se.Mechanism != "UNTYPED" || faults.Dials() != 1 {
			t.Errorf("%v after %d dials; want a *sasl.Error of UNTYPED, %v, after 1", err, faults.Dials(), c.want)
		}
	}
}

// Fault: DIGEST-MD5 without a user name. The dial fails before it is
// made: nothing reaches the server.
func TestDigestWithoutUser(t *testing.T) {
	dials := 0
	dial, err := sasl.Dialer(func(string, string, time.Duration) (net.Conn, error) {
		dials++
		return nil, errors.New("dialled")
	}, sasl.DigestMD5("", "secret"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dial("tcp", "zk1:2181", time.Second)
	var se *sasl.Error
	if !errors.As(err, &se) || se.Failure != sasl.ClientFailure || dials != 0 {
		t.Fatalf("%v after %d dials; want a ClientFailure before any", err, dials)
	}
}

// A nil mechanism or option is ErrInvalidArgument.
func TestDialerInvalidArguments(t *testing.T) {
	mech := sasl.DigestMD5("kafka", "secret")
	for name, call := range map[string]func() error{
		"nil mechanism": func() error { _, err := sasl.Dialer(nil, nil, time.Second); return err },
		"nil option":    func() error { _, err := sasl.Dialer(nil, mech, time.Second, nil); return err },
		"nil stats":     func() error { _, err := sasl.Dialer(nil, mech, time.Second, sasl.WithStats(nil)); return err },
		"nil logger":    func() error { _, err := sasl.Dialer(nil, mech, time.Second, sasl.WithLogger(nil)); return err },
	} {
		if err := call(); !errors.Is(err, sasl.ErrInvalidArgument) {
			t.Errorf("%s: %v; want ErrInvalidArgument", name, err)
		}
	}
	if _, err := sasl.Dialer(nil, mech, time.Second, sasl.WithLogger(slog.Default())); err != nil {
		t.Fatal(err)
	}
}
