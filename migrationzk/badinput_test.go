package migrationzk_test

// The bad-input matrix: every public entry point of the package against
// bad znode data, missing znodes, invalid paths and paths escaping the root,
// negative and impossible versions and epochs, oversized ops and batches,
// an empty batch, a closed client, an already-cancelled context and a
// context that ends mid-retry. Each row asserts the exact error, that
// ZooKeeper is unchanged when the call was refused, and that the Writer
// still works afterwards unless it was fenced. The znode decoders' own
// matrix (every class of bad bytes against every decoder) is in
// migrationzk/znode/bad_test.go.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// matrixRow is one bad input to one entry point.
type matrixRow struct {
	name string
	// fresh rows start from the seeded cluster with no claim and no
	// /migration; the others from a Writer that claimed and created it.
	fresh bool
	opts  []migrationzk.Option
	// prepare alters ZooKeeper or the State before the call.
	prepare func(c *cluster, s *migrationzk.State)
	ctx     func(t *testing.T) context.Context
	call    func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error
	// want is matched with errors.Is; nil wants success. check, if set,
	// looks further into the error (errors.As).
	want  []error
	check func(t *testing.T, c *cluster, err error)
	// unsent rows send no request at all; changes rows may change
	// ZooKeeper; fenced rows retire the Writer.
	unsent, changes, fenced bool
	// repair undoes what prepare broke, before the Writer is shown to work.
	repair func(c *cluster)
}

// badBytes are the classes of bad data for a JSON znode whose golden
// encoding is golden: key replaced by a string, an out-of-range number and,
// unless version is "" because the decoder never reads the version, an
// unknown version.
func badBytes(golden, typedKey, rangeKey string, version string) []struct {
	name   string
	data   []byte
	reason error
} {
	swap := func(key, value string) []byte {
		i := strings.Index(golden, `"`+key+`":`)
		j := i + len(key) + 3
		k := j + strings.IndexAny(golden[j:], ",}")
		return []byte(golden[:j] + value + golden[k:])
	}
	bad := []struct {
		name   string
		data   []byte
		reason error
	}{
		{"null", nil, znode.ErrNullData},
		{"empty", []byte{}, znode.ErrEmptyData},
		{"truncated", []byte(golden[:len(golden)/2]), znode.ErrInvalidJSON},
		{"non-JSON", []byte("not json"), znode.ErrInvalidJSON},
		{"wrong-typed", swap(typedKey, `"7"`), znode.ErrWrongType},
		{"out-of-range", swap(rangeKey, "99999999999999999999"), znode.ErrOutOfRange},
	}
	if version != "" {
		bad = append(bad, struct {
			name   string
			data   []byte
			reason error
		}{"unknown-version", swap("version", version), znode.ErrUnknownVersion})
	}
	return bad
}

func decodeErrorOn(path string) func(t *testing.T, c *cluster, err error) {
	return func(t *testing.T, c *cluster, err error) {
		var de *migrationzk.DecodeError
		if !errors.As(err, &de) || de.Path != c.p(path) {
			t.Fatalf("err = %v, want a *DecodeError on %s", err, c.p(path))
		}
	}
}

func conflictAt(path string, version int32) func(t *testing.T, c *cluster, err error) {
	return func(t *testing.T, c *cluster, err error) {
		var ce *migrationzk.ConflictError
		if !errors.As(err, &ce) || ce.Path != c.p(path) || (version >= 0 && ce.CurrentVersion != version) {
			t.Fatalf("err = %v, want a *ConflictError on %s at version %d", err, c.p(path), version)
		}
	}
}

func fencedBy(path string) func(t *testing.T, c *cluster, err error) {
	return func(t *testing.T, c *cluster, err error) {
		var fe *migrationzk.FencedError
		if !errors.As(err, &fe) || fe.Path != path {
			t.Fatalf("err = %v, want a *FencedError on %s", err, c.p(path))
		}
	}
}

// Entry points as calls, for the rows that try each of them.
var entryPoints = []struct {
	name string
	call func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error
}{
	{"GetOrCreate", getOrCreate},
	{"Update", update},
	{"Apply", apply(topicOps("m", 1)...)},
	{"ClaimLeadership", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
		s.KRaftControllerEpoch++
		_, err := w.ClaimLeadership(ctx, s)
		return err
	}},
	{"ReleaseLeadership", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
		_, err := w.ReleaseLeadership(ctx, s)
		return err
	}},
	{"ConditionalUpdate", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
		_, err := w.ConditionalUpdate(ctx, "/brokers/topics", []byte("x"), 0, nil)
		return err
	}},
	{"ConditionalDelete", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
		return deleteErr(w.ConditionalDelete(ctx, "/brokers/topics", 0))
	}},
}

func update(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
	s.KRaftMetadataOffset++
	_, err := w.Update(ctx, s)
	return err
}

func apply(ops ...migrationzk.Op) func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
	return func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
		s.KRaftMetadataOffset++
		_, _, err := w.Apply(ctx, s, ops...)
		return err
	}
}

func getOrCreate(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
	_, _, err := w.GetOrCreate(ctx, s)
	return err
}

func claimLeadership(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
	_, err := w.ClaimLeadership(ctx, s)
	return err
}

func (c *cluster) set(path string, data []byte) {
	c.t.Helper()
	if _, err := c.admin.Set(c.p(path), data, -1); err != nil {
		c.t.Fatalf("set %s: %v", path, err)
	}
}

func (c *cluster) remove(path string) {
	c.t.Helper()
	if err := c.admin.Delete(c.p(path), -1); err != nil {
		c.t.Fatalf("delete %s: %v", path, err)
	}
}

func matrixRows() []matrixRow {
	var rows []matrixRow
	add := func(r ...matrixRow) { rows = append(rows, r...) }

	// Bad znode data in /migration, /controller_epoch, /controller and a
	// payload znode, for each entry point that reads it.
	for _, b := range badBytes(`{"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}`,
		"kraft_metadata_offset", "kraft_controller_id", "1") {
		b := b
		if b.data == nil || len(b.data) == 0 {
			// Null or empty /migration is absent: overwritten with the
			// initial state at the next version.
			add(matrixRow{name: "GetOrCreate/migration-" + b.name, fresh: true, changes: true,
				prepare: func(c *cluster, s *migrationzk.State) { c.create("/migration", b.data) },
				call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
					got, _, err := w.GetOrCreate(ctx, s)
					if err == nil && got.MigrationZkVersion != 1 {
						return fmt.Errorf("overwrote at version %d, want 1", got.MigrationZkVersion)
					}
					return err
				}})
		} else {
			add(matrixRow{name: "GetOrCreate/migration-" + b.name, fresh: true,
				prepare: func(c *cluster, s *migrationzk.State) { c.create("/migration", b.data) },
				call:    getOrCreate, want: []error{b.reason}, check: decodeErrorOn("/migration"),
				repair: func(c *cluster) { c.remove("/migration") }})
		}
		for _, ep := range []struct {
			name string
			call func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error
		}{{"Update", update}, {"Apply", apply(topicOps("d", 1)...)}} {
			add(matrixRow{name: ep.name + "/migration-" + b.name,
				prepare: func(c *cluster, s *migrationzk.State) { c.set("/migration", b.data) },
				call:    ep.call, want: []error{migrationzk.ErrConflict, b.reason},
				check: func(t *testing.T, c *cluster, err error) {
					conflictAt("/migration", -1)(t, c, err)
					var de *migrationzk.DecodeError
					if !errors.As(err, &de) || de.Path != c.p("/migration") {
						t.Fatalf("conflict %v does not carry the *DecodeError on /migration", err)
					}
				},
				repair: func(c *cluster) { c.set("/migration", kraftData()) }})
		}
	}
	for _, b := range []struct {
		name   string
		data   []byte
		reason error
	}{
		{"null", nil, znode.ErrNullData}, {"empty", []byte{}, znode.ErrEmptyData},
		{"non-decimal", []byte("4x"), znode.ErrWrongType}, {"JSON", []byte(`{"epoch":4}`), znode.ErrWrongType},
		{"wrong-typed", []byte(`"4"`), znode.ErrWrongType}, {"out-of-range", []byte("2147483648"), znode.ErrOutOfRange},
	} {
		b := b
		add(matrixRow{name: "ClaimLeadership/controller_epoch-" + b.name, fresh: true,
			prepare: func(c *cluster, s *migrationzk.State) { c.set("/controller_epoch", b.data) },
			call:    claimLeadership, want: []error{b.reason}, check: decodeErrorOn("/controller_epoch"),
			repair: func(c *cluster) { c.set("/controller_epoch", znode.EncodeControllerEpoch(1)) }})
	}
	for _, b := range badBytes(`{"version":2,"brokerid":3000,"timestamp":"1729500000000","kraftControllerEpoch":5}`, "brokerid", "kraftControllerEpoch", "") {
		b := b
		add(matrixRow{name: "ClaimLeadership/controller-" + b.name, fresh: true,
			prepare: func(c *cluster, s *migrationzk.State) { c.remove("/controller"); c.create("/controller", b.data) },
			call:    claimLeadership, want: []error{b.reason}, check: decodeErrorOn("/controller"),
			repair: func(c *cluster) { c.remove("/controller") }})
	}
	for _, b := range badBytes(`{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}`, "leader", "leader_epoch", "") {
		b := b
		// The bad data is at exactly the version after the expected one,
		// so the checker must decode it.
		add(matrixRow{name: "ConditionalUpdate/partition-state-" + b.name,
			prepare: func(c *cluster, s *migrationzk.State) {
				c.create("/brokers/topics/p", znode.PartitionState{Leader: 2, ISR: []int32{2}}.Encode())
				c.set("/brokers/topics/p", b.data)
			},
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				st := znode.PartitionState{ControllerEpoch: 5, Leader: 1, ISR: []int32{1}}
				_, err := w.ConditionalUpdate(ctx, "/brokers/topics/p", st.Encode(), 0, checker.LeaderAndIsr{})
				return err
			},
			want: []error{migrationzk.ErrConflict, b.reason}, check: conflictAt("/brokers/topics/p", 1)})
	}
	add(matrixRow{name: "ConditionalUpdate/intended-undecodable",
		prepare: func(c *cluster, s *migrationzk.State) {
			c.create("/brokers/topics/p", znode.PartitionState{Leader: 1, ISR: []int32{1}}.Encode())
			c.set("/brokers/topics/p", znode.PartitionState{Leader: 2, ISR: []int32{2}}.Encode())
		},
		call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
			_, err := w.ConditionalUpdate(ctx, "/brokers/topics/p", []byte("{garbage"), 0, checker.LeaderAndIsr{})
			return err
		},
		want: []error{migrationzk.ErrConflict, checker.ErrIntended}, check: conflictAt("/brokers/topics/p", 1)})

	// Missing znodes.
	add(
		matrixRow{name: "Update/no-migration", prepare: func(c *cluster, s *migrationzk.State) { c.remove("/migration") },
			call: update, want: []error{migrationzk.ErrNoMigrationState}, repair: func(c *cluster) { c.create("/migration", kraftData()) }},
		matrixRow{name: "Apply/no-migration", prepare: func(c *cluster, s *migrationzk.State) { c.remove("/migration") },
			call: apply(topicOps("n", 1)...), want: []error{migrationzk.ErrNoMigrationState}, repair: func(c *cluster) { c.create("/migration", kraftData()) }},
		matrixRow{name: "Update/no-controller_epoch", prepare: func(c *cluster, s *migrationzk.State) { c.remove("/controller_epoch") },
			call: update, want: []error{migrationzk.ErrFenced}, check: fencedBy("/controller_epoch"), fenced: true},
		matrixRow{name: "Apply/no-controller_epoch", prepare: func(c *cluster, s *migrationzk.State) { c.remove("/controller_epoch") },
			call: apply(topicOps("n", 1)...), want: []error{migrationzk.ErrFenced}, fenced: true},
		matrixRow{name: "ClaimLeadership/no-controller_epoch", fresh: true, changes: true,
			prepare: func(c *cluster, s *migrationzk.State) { c.remove("/controller_epoch") }, call: claimLeadership},
		matrixRow{name: "ClaimLeadership/no-controller", fresh: true, changes: true,
			prepare: func(c *cluster, s *migrationzk.State) { c.remove("/controller") }, call: claimLeadership},
		matrixRow{name: "ReleaseLeadership/no-controller", prepare: func(c *cluster, s *migrationzk.State) { c.remove("/controller") },
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				_, err := w.ReleaseLeadership(ctx, s)
				return err
			}},
		matrixRow{name: "Apply/no-parent", changes: true,
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				s.KRaftMetadataOffset = 4242
				next, res, err := w.Apply(ctx, s, migrationzk.Create("/brokers/topics/none/partitions/0", nil))
				if err != nil {
					return err
				}
				if !errors.Is(res[0].Err, zk.ErrNoNode) || next.MigrationZkVersion != s.MigrationZkVersion+1 {
					return fmt.Errorf("result %v at version %d: want NoNode and the checkpoint written", res[0].Err, next.MigrationZkVersion)
				}
				c.checkMatches(next)
				return nil
			}},
		matrixRow{name: "ConditionalUpdate/missing", call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
			_, err := w.ConditionalUpdate(ctx, "/brokers/topics/none", []byte("x"), 0, nil)
			if errors.Is(err, migrationzk.ErrConflict) {
				return fmt.Errorf("a missing znode reported as a conflict: %w", err)
			}
			return err
		}, want: []error{zk.ErrNoNode}},
		matrixRow{name: "ConditionalDelete/missing", call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
			return deleteErr(w.ConditionalDelete(ctx, "/brokers/topics/none", 0))
		}},
		matrixRow{name: "GetOrCreate/no-root", fresh: true,
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				_, _, err := must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(c.root+"/missing"))).GetOrCreate(ctx, s)
				return err
			}, want: []error{zk.ErrNoNode}},
	)

	// Invalid paths and paths that escape the root; invalid options.
	for _, p := range []string{"", "relative", "/a//b", "/a/../b", "/..", "/a/.", "/a/", "/", "/migration", "/controller_epoch", "/a\x00b", "/a\x7fb", "/a\u0085b", "/a\ufff5b"} {
		p := p
		add(matrixRow{name: fmt.Sprintf("Apply/path-%q", p), unsent: true, call: apply(migrationzk.Create(p, nil)), want: []error{migrationzk.ErrInvalidArgument}})
	}
	for _, p := range []string{"", "relative", "/a/../b", "/a/", "/x\x00"} {
		p := p
		add(matrixRow{name: fmt.Sprintf("ConditionalUpdate/path-%q", p), unsent: true, want: []error{migrationzk.ErrInvalidArgument},
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				_, err := w.ConditionalUpdate(ctx, p, []byte("x"), 0, nil)
				return err
			}})
	}
	for _, p := range []string{"", "relative", "/", "/a/../b"} {
		p := p
		add(matrixRow{name: fmt.Sprintf("ConditionalDelete/path-%q", p), unsent: true, want: []error{migrationzk.ErrInvalidArgument},
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				return deleteErr(w.ConditionalDelete(ctx, p, 0))
			}})
	}
	for _, opt := range []struct {
		name string
		opt  migrationzk.Option
	}{
		{"root-no-slash", migrationzk.WithRoot("kafka")}, {"root-trailing-slash", migrationzk.WithRoot("/kafka/")},
		{"root-escapes", migrationzk.WithRoot("/kafka/../other")}, {"max-request-bytes", migrationzk.WithMaxRequestBytes(100)},
		{"nil-backoff", migrationzk.WithBackOff(nil)}, {"empty-acl", migrationzk.WithACL(nil)},
		{"nil-logger", migrationzk.WithLogger(nil)}, {"nil-acl-policy", migrationzk.WithACLPolicy(nil)},
		{"acl-without-scheme", migrationzk.WithACL([]zk.ACL{{Perms: zk.PermAll, ID: "anyone"}})},
		{"acl-unknown-perms", migrationzk.WithACL([]zk.ACL{{Perms: 64, Scheme: "world", ID: "anyone"}})},
		{"nil-option", nil},
	} {
		for _, ep := range entryPoints {
			opt, ep := opt, ep
			add(matrixRow{name: ep.name + "/option-" + opt.name, unsent: true, want: []error{migrationzk.ErrInvalidArgument},
				call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
					// New refuses the option: there is no Writer to call.
					bad, err := migrationzk.New(c.conn, opt.opt)
					if err == nil {
						return ep.call(ctx, c, bad, s)
					}
					if bad != nil {
						return errors.New("New returned a Writer and an error")
					}
					return err
				}})
		}
	}

	// Negative and impossible versions and epochs.
	invalid := func(name string, tweak func(s *migrationzk.State), call func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error) matrixRow {
		return matrixRow{name: name, unsent: true, want: []error{migrationzk.ErrInvalidArgument},
			prepare: func(c *cluster, s *migrationzk.State) { tweak(s) }, call: call}
	}
	for _, f := range []struct {
		name  string
		tweak func(s *migrationzk.State)
	}{
		{"MigrationZkVersion-2", func(s *migrationzk.State) { s.MigrationZkVersion = -2 }},
		{"KRaftMetadataOffset-7", func(s *migrationzk.State) { s.KRaftMetadataOffset = -7 }},
		{"KRaftControllerEpoch-2", func(s *migrationzk.State) { s.KRaftControllerEpoch = -2 }},
		{"KRaftControllerID-2", func(s *migrationzk.State) { s.KRaftControllerID = -2 }},
		{"KRaftMetadataEpoch-2", func(s *migrationzk.State) { s.KRaftMetadataEpoch = -2 }},
		{"ZkControllerEpochZkVersion-2", func(s *migrationzk.State) { s.ZkControllerEpochZkVersion = -2 }},
		{"MinInt32", func(s *migrationzk.State) { s.MigrationZkVersion = math.MinInt32 }},
	} {
		for _, ep := range entryPoints[:5] {
			add(invalid(ep.name+"/"+f.name, f.tweak, ep.call))
		}
	}
	add(
		invalid("Update/MigrationZkVersion-1", func(s *migrationzk.State) { s.MigrationZkVersion = -1 }, update),
		invalid("Apply/MigrationZkVersion-1", func(s *migrationzk.State) { s.MigrationZkVersion = -1 }, apply(topicOps("v", 1)...)),
		invalid("Apply/unfenced", func(s *migrationzk.State) { s.ZkControllerEpochZkVersion = -1 }, apply(topicOps("v", 1)...)),
		invalid("Apply/op-version-2", func(s *migrationzk.State) {}, apply(migrationzk.SetData("/brokers/topics", nil, -2))),
		invalid("Apply/zero-op", func(s *migrationzk.State) {}, apply(migrationzk.Op{})),
		invalid("ClaimLeadership/no-controller-id", func(s *migrationzk.State) { s.KRaftControllerID = -1 }, claimLeadership),
		invalid("ClaimLeadership/no-kraft-epoch", func(s *migrationzk.State) { s.KRaftControllerEpoch = -1 }, claimLeadership),
		invalid("ReleaseLeadership/unclaimed", func(s *migrationzk.State) { s.ZkControllerEpochZkVersion = -1 }, entryPoints[4].call),
		matrixRow{name: "ConditionalUpdate/version-1", unsent: true, want: []error{migrationzk.ErrInvalidArgument},
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				_, err := w.ConditionalUpdate(ctx, "/brokers/topics", nil, -1, nil)
				return err
			}},
		matrixRow{name: "ConditionalDelete/version-1", unsent: true, want: []error{migrationzk.ErrInvalidArgument},
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				return deleteErr(w.ConditionalDelete(ctx, "/brokers/topics", -1))
			}},
		matrixRow{name: "Update/future-version", prepare: func(c *cluster, s *migrationzk.State) { s.MigrationZkVersion += 5 },
			call: update, want: []error{migrationzk.ErrConflict}, check: conflictAt("/migration", 0)},
		matrixRow{name: "Update/MaxInt32-version", prepare: func(c *cluster, s *migrationzk.State) { s.MigrationZkVersion = math.MaxInt32 },
			call: update, want: []error{migrationzk.ErrConflict}, check: conflictAt("/migration", 0)},
		matrixRow{name: "Apply/future-version", prepare: func(c *cluster, s *migrationzk.State) { s.MigrationZkVersion += 5 },
			call: apply(topicOps("f", 1)...), want: []error{migrationzk.ErrConflict}, check: conflictAt("/migration", 0)},
		matrixRow{name: "Update/impossible-fence", prepare: func(c *cluster, s *migrationzk.State) { s.ZkControllerEpochZkVersion += 3 },
			call: update, want: []error{migrationzk.ErrFenced}, check: fencedBy("/controller_epoch"), fenced: true},
		matrixRow{name: "ClaimLeadership/older-kraft-epoch",
			prepare: func(c *cluster, s *migrationzk.State) { s.KRaftControllerID, s.KRaftControllerEpoch = 3001, 4 },
			call:    claimLeadership, want: []error{migrationzk.ErrFenced}, check: fencedBy("/controller"), fenced: true},
		matrixRow{name: "Update/older-kraft-epoch",
			prepare: func(c *cluster, s *migrationzk.State) { s.KRaftControllerEpoch = 4; s.MigrationZkVersion += 1 },
			call:    update, want: []error{migrationzk.ErrFenced}, check: fencedBy("/migration"), fenced: true},
	)

	// Oversized ops and batches; the empty batch.
	add(
		matrixRow{name: "Apply/op-too-large", unsent: true, want: []error{migrationzk.ErrTooLarge},
			call: apply(append(topicOps("ok", 1), migrationzk.Create("/brokers/topics/huge", make([]byte, migrationzk.DefaultMaxRequestBytes)))...)},
		matrixRow{name: "Apply/op-too-large-small-limit", unsent: true, want: []error{migrationzk.ErrTooLarge},
			opts: []migrationzk.Option{migrationzk.WithMaxRequestBytes(1024)},
			call: apply(migrationzk.Create("/brokers/topics/big", make([]byte, 1024)))},
		matrixRow{name: "Apply/op-just-fits", changes: true,
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				s.KRaftMetadataOffset++
				// The transaction holds three paths under the root besides the data.
				size := migrationzk.DefaultMaxRequestBytes - 300 - 3*len(c.root)
				next, _, err := w.Apply(ctx, s, migrationzk.Create("/brokers/topics/big", make([]byte, size)))
				if err == nil {
					if got := c.faults.LargestRequest(); got > migrationzk.DefaultMaxRequestBytes || got < size {
						return fmt.Errorf("sent a request of %d bytes for %d bytes of data", got, size)
					}
					c.checkMatches(next)
				}
				return err
			}},
		matrixRow{name: "Apply/batch-larger-than-a-request", changes: true, opts: []migrationzk.Option{migrationzk.WithMaxRequestBytes(4096)},
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				s.KRaftMetadataOffset++
				ops := bigOps("split", 40)
				next, res, err := w.Apply(ctx, s, ops...)
				if err != nil {
					return err
				}
				if n := c.faults.Count(zktest.OpMulti); n < 3 || c.faults.LargestRequest() > 4096 {
					return fmt.Errorf("%d transactions, largest %d bytes", n, c.faults.LargestRequest())
				}
				if err := migrationzk.OpErrors(res); err != nil {
					return err
				}
				c.checkApplied(ops)
				c.checkMatches(next)
				return nil
			}},
		matrixRow{name: "ConditionalUpdate/too-large", unsent: true, want: []error{migrationzk.ErrTooLarge},
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				_, err := w.ConditionalUpdate(ctx, "/brokers/topics", make([]byte, migrationzk.DefaultMaxRequestBytes), 0, nil)
				return err
			}},
		matrixRow{name: "Apply/empty-batch", unsent: true,
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				next, res, err := w.Apply(ctx, s)
				if err == nil && (res != nil || next != s) {
					return fmt.Errorf("empty batch returned %+v, %v", next, res)
				}
				return err
			}},
	)

	// A closed client, and an already-cancelled context, at every entry
	// point.
	for _, ep := range entryPoints {
		ep := ep
		add(matrixRow{name: ep.name + "/closed-conn", want: []error{migrationzk.ErrConnClosed},
			prepare: func(c *cluster, s *migrationzk.State) { c.conn.Close() }, call: ep.call})
		add(matrixRow{name: ep.name + "/cancelled", unsent: true, want: []error{context.Canceled},
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			},
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				err := ep.call(ctx, c, w, s)
				if errors.Is(err, migrationzk.ErrOutcomeUnknown) {
					return fmt.Errorf("nothing was sent, yet: %w", err)
				}
				return err
			}})
	}
	return rows
}

// kraftData is /migration holding kraft().
func kraftData() []byte {
	return kraft().Checkpoint().Encode()
}

// snapshot returns every znode under the root: path to version and data.
func (c *cluster) snapshot() map[string]string {
	c.t.Helper()
	out := map[string]string{}
	var walk func(p string)
	walk = func(p string) {
		data, st, err := c.admin.Get(p)
		if errors.Is(err, zk.ErrNoNode) {
			return
		}
		if err != nil {
			c.t.Fatalf("snapshot %s: %v", p, err)
		}
		out[p] = fmt.Sprintf("v%d %q", st.Version, data)
		children, _, err := c.admin.Children(p)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			c.t.Fatalf("snapshot %s: %v", p, err)
		}
		sort.Strings(children)
		for _, ch := range children {
			walk(strings.TrimSuffix(p, "/") + "/" + ch)
		}
	}
	if _, err := c.admin.Sync(c.root); err != nil {
		c.t.Fatalf("sync: %v", err)
	}
	walk(c.root)
	return out
}

// stillWorks shows the Writer can claim (or find its claim), read the
// checkpoint and write the next one.
func stillWorks(t *testing.T, c *cluster, w *migrationzk.Writer) {
	t.Helper()
	ctx := testContext(t)
	s, err := w.ClaimLeadership(ctx, kraft())
	if err != nil {
		t.Fatalf("writer no longer works: ClaimLeadership: %v", err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		t.Fatalf("writer no longer works: GetOrCreate: %v", err)
	}
	s.KRaftMetadataOffset++
	next, err := w.Update(ctx, s)
	if err != nil {
		t.Fatalf("writer no longer works: Update: %v", err)
	}
	c.checkMatches(next)
}

// Fault: bad input of every kind at every entry point: bad znode data,
// missing znodes, invalid and escaping paths, negative and impossible
// versions and epochs, oversized ops and batches, an empty batch, a closed
// client and an already-cancelled context.
func TestBadInputMatrix(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	for n, row := range matrixRows() {
		row := row
		t.Run(row.name, func(t *testing.T) {
			root := srv.Path(fmt.Sprintf("/row%03d", n))
			if _, err := admin.Create(root, nil, 0, worldACL); err != nil {
				t.Fatal(err)
			}
			c := &cluster{t: t, srv: srv, faults: zktest.NewFaultDialer(t), admin: admin, root: root}
			c.conn = srv.Connect(t, c.faults.Option())
			c.seed()
			w := c.writer(row.opts...)
			s := kraft()
			if !row.fresh {
				s = c.start(c.writer())
			}
			if row.prepare != nil {
				row.prepare(c, &s)
			}
			before := c.snapshot()
			c.faults.ResetCounts()
			ctx := testContext(t)
			if row.ctx != nil {
				ctx = row.ctx(t)
			}
			err := row.call(ctx, c, w, s)
			for _, want := range row.want {
				if !errors.Is(err, want) {
					t.Fatalf("err = %v, want %v", err, want)
				}
			}
			if len(row.want) == 0 && err != nil {
				t.Fatalf("err = %v, want success", err)
			}
			if row.check != nil {
				row.check(t, c, err)
			}
			if row.unsent && c.faults.Requests() != 0 {
				t.Fatalf("%d requests sent: %v", c.faults.Requests(), c.faults.Counts())
			}
			if after := c.snapshot(); !row.changes && !equalSnapshots(before, after) {
				t.Fatalf("ZooKeeper changed by a refused call:\nbefore %v\nafter  %v", before, after)
			}
			if retired, _ := w.Retired(); retired != row.fenced {
				t.Fatalf("retired = %v, want %v", retired, row.fenced)
			}
			switch {
			case row.fenced:
				if _, err := w.Update(testContext(t), s); !errors.Is(err, migrationzk.ErrRetired) {
					t.Fatalf("after the fence: %v, want ErrRetired", err)
				}
			case c.conn.State() == zk.StateDisconnected:
				// The client was closed: the Writer cannot work on it, but
				// is not retired; on a new client it works.
				c.conn = srv.Connect(t)
				stillWorks(t, c, c.writer())
			default:
				if row.repair != nil {
					row.repair(c)
				}
				if len(row.opts) > 0 {
					w = c.writer()
				}
				stillWorks(t, c, w)
			}
		})
	}
}

func equalSnapshots(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Fault: the context ends mid-retry: every request of the call is cut
// while the call retries, after the first copy of the write landed (its
// reply dropped) or without any copy landing. The call must end with
// ErrOutcomeUnknown and the context's error, and calling again with the
// same arguments once the faults stop must succeed, as a recovery when the
// first copy landed.
func TestCancelledMidRetry(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	type call func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) (bool, error)
	calls := []struct {
		name  string
		fresh bool
		op    zktest.Op
		path  string
		call  call
	}{
		{"Update", false, zktest.OpMulti, "/migration", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) (bool, error) {
			s.KRaftMetadataOffset = 9000
			n, err := w.Update(ctx, s)
			return n.Recovered, err
		}},
		{"Apply", false, zktest.OpMulti, "/migration", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) (bool, error) {
			s.KRaftMetadataOffset = 9000
			n, _, err := w.Apply(ctx, s, topicOps("mid", 1)...)
			return n.Recovered, err
		}},
		{"GetOrCreate", true, zktest.OpCreate, "/migration", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) (bool, error) {
			n, _, err := w.GetOrCreate(ctx, s)
			return n.Recovered, err
		}},
		{"ClaimLeadership", true, zktest.OpMulti, "/controller", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) (bool, error) {
			n, err := w.ClaimLeadership(ctx, s)
			return n.Recovered, err
		}},
		{"ReleaseLeadership", false, zktest.OpMulti, "/controller", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) (bool, error) {
			n, err := w.ReleaseLeadership(ctx, s)
			return n.Recovered, err
		}},
		{"ConditionalUpdate", false, zktest.OpSetData, "/brokers/topics", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) (bool, error) {
			_, err := w.ConditionalUpdate(ctx, "/brokers/topics", []byte("x"), 0, nil)
			return false, err
		}},
		{"ConditionalDelete", false, zktest.OpMulti, "/brokers/topics", func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) (bool, error) {
			return false, deleteErr(w.ConditionalDelete(ctx, "/brokers/topics", 0))
		}},
	}
	n := 0
	for _, tc := range calls {
		for _, landed := range []bool{true, false} {
			tc, landed := tc, landed
			n++
			t.Run(fmt.Sprintf("%s/landed=%v", tc.name, landed), func(t *testing.T) {
				root := srv.Path(fmt.Sprintf("/mid%03d", n))
				if _, err := admin.Create(root, nil, 0, worldACL); err != nil {
					t.Fatal(err)
				}
				c := &cluster{t: t, srv: srv, faults: zktest.NewFaultDialer(t), admin: admin, root: root}
				c.conn = srv.Connect(t, c.faults.Option())
				c.seed()
				w := c.writer()
				s := kraft()
				if !tc.fresh {
					s = c.start(w)
				}
				before := c.snapshot()
				// Cut every later request once the first copy landed, or
				// every copy of the write.
				var mu sync.Mutex
				var armed []*zktest.Armed
				cutAll := func(op zktest.Op, path string) {
					mu.Lock()
					defer mu.Unlock()
					for i := 0; i < 500; i++ {
						armed = append(armed, c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: op, Path: path}))
					}
				}
				if landed {
					c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: tc.op, Path: c.p(tc.path), Then: func() { cutAll(zktest.OpAny, "") }})
				} else {
					cutAll(tc.op, c.p(tc.path))
				}
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				_, err := tc.call(ctx, c, w, s)
				cancel()
				mu.Lock()
				for _, a := range armed {
					a.Disarm()
				}
				mu.Unlock()
				if !errors.Is(err, migrationzk.ErrOutcomeUnknown) || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("err = %v, want ErrOutcomeUnknown and the deadline", err)
				}
				if changed := !equalSnapshots(before, c.snapshot()); changed != landed {
					t.Fatalf("ZooKeeper changed: %v; the first copy landed: %v", changed, landed)
				}
				if retired, _ := w.Retired(); retired {
					t.Fatal("retired by a deadline")
				}
				waitSession(t, c.conn)
				recovered, err := tc.call(testContext(t), c, w, s)
				if err != nil {
					t.Fatalf("calling again: %v", err)
				}
				// GetOrCreate finds the created znode by reading it, and the
				// generic calls and a release report no recovery.
				if (tc.name == "Update" || tc.name == "Apply" || tc.name == "ClaimLeadership") && recovered != landed {
					t.Fatalf("calling again: recovered %v, want %v", recovered, landed)
				}
				if tc.name == "ReleaseLeadership" {
					return
				}
				stillWorks(t, c, w)
			})
		}
	}
}

// Fault: bad input to zkconn.Connect: no servers, an already-cancelled
// context, and an address where nobody listens (refused at once, reported
// as refused well before the context ends).
func TestConnectBadInput(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	long, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		servers []string
		want    error
	}{
		{"no-servers", context.Background(), nil, nil},
		{"cancelled", cancelled, []string{"127.0.0.1:1"}, context.Canceled},
		{"nobody-listening", long, []string{"127.0.0.1:1"}, syscall.ECONNREFUSED},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := zkconn.Open(tc.ctx, tc.servers, time.Second)
			if err == nil {
				conn.Close()
				t.Fatal("connected")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
