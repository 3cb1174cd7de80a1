package migrationzk_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// nilConn is a Conn that is never called: New must refuse or accept
// without using it.
type nilConn struct{ migrationzk.Conn }

// Fault: none (no server). Every invalid option fails New with an error
// wrapping ErrInvalidArgument, naming the option, and no Writer; valid
// ones, the defaults spelt out included, make one.
func TestNewRefusesInvalidOptions(t *testing.T) {
	for name, opt := range map[string]migrationzk.Option{
		"nil-logger":          migrationzk.WithLogger(nil),
		"nil-backoff":         migrationzk.WithBackOff(nil),
		"relative-root":       migrationzk.WithRoot("kafka"),
		"root-trailing-slash": migrationzk.WithRoot("/kafka/"),
		"small-requests":      migrationzk.WithMaxRequestBytes(1023),
		"empty-acl":           migrationzk.WithACL(nil),
		"acl-without-scheme":  migrationzk.WithACL([]zk.ACL{{Perms: zk.PermAll, ID: "anyone"}}),
		"acl-unknown-perms":   migrationzk.WithACL([]zk.ACL{{Perms: zk.PermAll | 64, Scheme: "world", ID: "anyone"}}),
		"nil-acl-policy":      migrationzk.WithACLPolicy(nil),
		"nil-option":          nil,
	} {
		w, err := migrationzk.New(nilConn{}, opt)
		if !errors.Is(err, migrationzk.ErrInvalidArgument) || w != nil {
			t.Errorf("%s: New = %v, %v; want no Writer and ErrInvalidArgument", name, w, err)
		}
	}
	if w, err := migrationzk.New(nil); !errors.Is(err, migrationzk.ErrInvalidArgument) || w != nil {
		t.Errorf("New(nil) = %v, %v", w, err)
	}
	if w, err := migrationzk.New((*zk.Conn)(nil)); !errors.Is(err, migrationzk.ErrInvalidArgument) || w != nil {
		t.Errorf("New of a nil *zk.Conn = %v, %v", w, err)
	}
	_, err := migrationzk.New(nilConn{}, migrationzk.WithLogger(nil), migrationzk.WithMaxRequestBytes(1))
	if err == nil || !strings.Contains(err.Error(), "WithLogger(nil)") {
		t.Errorf("err = %v, want the first invalid option named", err)
	}
	if _, err := migrationzk.New(nilConn{}, migrationzk.WithLogger(slog.Default()), migrationzk.WithRoot("/"),
		migrationzk.WithRoot(""), migrationzk.WithRoot("/kafka"), migrationzk.WithMaxRequestBytes(1024),
		migrationzk.WithBackOff(func() migrationzk.BackOff { return constant(time.Millisecond) }),
		migrationzk.WithACL(zk.WorldACL(zk.PermRead))); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
}

// constant is a BackOff that always pauses d.
type constant time.Duration

func (c constant) NextBackOff() time.Duration { return time.Duration(c) }
func (constant) Reset()                       {}
