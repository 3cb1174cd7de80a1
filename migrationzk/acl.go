package migrationzk

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
)

// WithACLPolicy sets how the Writer chooses the ACL of every znode it
// creates, parents made on the way included: policy gets the znode's path
// relative to the root (as Kafka's, chroot left out) and returns its ACL.
// It must be safe for concurrent use and never return an empty ACL.
func WithACLPolicy(policy func(path string) []zk.ACL) Option {
	return func(o *options) {
		if policy == nil {
			o.fail(invalidf("WithACLPolicy(nil)"))
			return
		}
		o.aclPolicy, o.acl = policy, nil
	}
}

// WithKafkaSecureACLs makes the Writer create znodes with the ACLs Kafka
// gives them with zookeeper.set.acl=true (KafkaSecureACL).
func WithKafkaSecureACLs() Option { return WithACLPolicy(KafkaSecureACL) }

// KafkaSecureACL returns the ACL Kafka gives a znode at path (relative to
// the chroot) with zookeeper.set.acl=true: all permissions for the
// identities the client authenticated as (auth:"", which the server
// replaces with them) and read for anyone; all permissions for the
// creators only below Kafka's sensitive paths (/config/users,
// /config/brokers, /delegation_token/tokens: a plain prefix of the path,
// as Kafka compares); everything for anyone on /consumers. Unlike Kafka,
// which passes the entity name instead of the path when its migration
// creates a config entity, the rule is always applied to the full path.
func KafkaSecureACL(path string) []zk.ACL {
	if path == "/consumers" {
		return zk.WorldACL(zk.PermAll)
	}
	if kafkaSensitive(path) {
		return zk.AuthACL(zk.PermAll)
	}
	return append(zk.AuthACL(zk.PermAll), zk.WorldACL(zk.PermRead)...)
}

// kafkaSensitive reports whether Kafka counts path among its sensitive
// paths, whose znodes only their creators may read.
func kafkaSensitive(path string) bool {
	return strings.HasPrefix(path, "/config/users") || strings.HasPrefix(path, "/config/brokers") ||
		strings.HasPrefix(path, "/delegation_token/tokens")
}

// CheckCredentials finds out, without writing, whether the client may
// write the znodes at paths (relative to the root; by default
// /controller_epoch, /controller and /migration): ZooKeeper checks a
// SetData's permission before its version, and a version no znode has
// makes it refuse the write either way. A digest password ZooKeeper took
// without complaint but that names no identity with the permission shows
// here as a *NotAuthorizedError. Missing znodes are skipped.
func (w *Writer) CheckCredentials(ctx context.Context, paths ...string) error {
	if len(paths) == 0 {
		paths = []string{"/controller_epoch", "/controller", "/migration"}
	}
	full, err := w.fullPaths(paths)
	if err != nil {
		return err
	}
	for _, p := range full {
		if err := w.probeWrite(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// CheckDeletable finds out, without deleting, whether the client may
// delete the znodes at paths (relative to the root; by default
// /controller, which a leadership claim and release delete): ZooKeeper
// checks a delete's permission, on the parent, before its version, and a
// version no znode has makes it refuse the delete either way. A refusal
// is a *NotAuthorizedError. Missing znodes are skipped. Each probe is a
// plain delete when the Conn has a Delete method, as *zk.Conn does, so
// that it is not taken for a Writer's own delete, which is a multi; a
// one-op multi otherwise.
func (w *Writer) CheckDeletable(ctx context.Context, paths ...string) error {
	if len(paths) == 0 {
		paths = []string{"/controller"}
	}
	full, err := w.fullPaths(paths)
	if err != nil {
		return err
	}
	for _, p := range full {
		if err := w.probe(ctx, p, "delete", w.deleteProbe(p)); err != nil {
			return err
		}
	}
	return nil
}

// deleter is the method of a Conn, if it has it, that CheckDeletable
// probes with.
type deleter interface {
	Delete(path string, version int32) error
}

// deleteProbe is a delete of path at impossibleVersion.
func (w *Writer) deleteProbe(path string) func() error {
	if d, ok := w.exec.conn.(deleter); ok {
		return func() error { return d.Delete(path, impossibleVersion) }
	}
	del := &zk.DeleteRequest{Path: path, Version: impossibleVersion}
	return func() error {
		_, err := w.exec.conn.Multi(del)
		return err
	}
}

// impossibleVersion is a version no znode has: -1 means any, and versions
// start at 0.
const impossibleVersion = -2

// probeWrite asks ZooKeeper to set path at impossibleVersion.
func (w *Writer) probeWrite(ctx context.Context, path string) error {
	return w.probe(ctx, path, "setData", func() error {
		_, err := w.exec.conn.Set(path, nil, impossibleVersion)
		return err
	})
}

// probe sends op, a request on path at impossibleVersion, until ZooKeeper
// answers it: refused for the version or a missing znode, the client may
// make it.
func (w *Writer) probe(ctx context.Context, path, op string, send func() error) error {
	err := w.exec.read(ctx, w.exec.retrier(), send)
	switch {
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNoNode):
		return nil
	case err == nil:
		return fmt.Errorf("migrationzk: probe of %s: ZooKeeper took a %s at version %d", path, op, impossibleVersion)
	case zkerr.Classify(err) == zkerr.Fatal:
		return withAuthOp(err, path, op)
	}
	return fmt.Errorf("migrationzk: probe of %s: %w", path, err)
}

// withAuthOp names path and op in the *NotAuthorizedError err holds, if
// any.
func withAuthOp(err error, path, op string) error {
	var nae *NotAuthorizedError
	if errors.As(err, &nae) {
		nae.Path, nae.Op = path, op
	}
	return err
}

// ZnodeACL is the access control list of a znode as a read found it.
type ZnodeACL struct {
	// Path is the znode's path, relative to the Writer's root.
	Path   string
	Exists bool
	// ACL is the znode's list of entries, nil for a missing znode.
	// ZooKeeper may hide a digest entry's hash from a client without the
	// ADMIN permission.
	ACL []zk.ACL
}

// aclReader is what ReadACL needs of a Conn beyond its methods; *zk.Conn
// has it.
type aclReader interface {
	GetACL(path string) ([]zk.ACL, *zk.Stat, error)
}

// ReadACL syncs with the leader, then reads the ACL of each path
// (relative to the Writer's root), several reads in flight at once,
// retrying over lost connections, as Read reads data. A missing znode
// reads as Exists false; a read ZooKeeper refuses for want of permission
// is a *NotAuthorizedError. The Writer's Conn must have GetACL, as
// *zk.Conn does: otherwise, as for an invalid path, the call fails with an
// error wrapping ErrInvalidArgument before anything is sent.
func (w *Writer) ReadACL(ctx context.Context, paths ...string) ([]ZnodeACL, error) {
	reader, ok := w.exec.conn.(aclReader)
	if !ok {
		return nil, invalidf("ReadACL: the Conn, a %T, has no GetACL method", w.exec.conn)
	}
	full, err := w.fullPaths(paths)
	if err != nil || len(full) == 0 {
		return nil, err
	}
	if err := w.exec.sync(ctx, w.exec.retrier(), full[0]); err != nil {
		return nil, fmt.Errorf("migrationzk: sync: %w", err)
	}
	out := make([]ZnodeACL, len(paths))
	err = w.exec.inParallel(ctx, len(full), func(r *retrier, i int) error {
		acl, exists, err := w.exec.getACL(ctx, r, reader, full[i])
		out[i] = ZnodeACL{Path: paths[i], Exists: exists, ACL: acl}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("migrationzk: read ACL: %w", err)
	}
	return out, nil
}

// getACL reads the ACL of the znode at path, if it exists.
func (e *executor) getACL(ctx context.Context, r *retrier, reader aclReader, path string) (acl []zk.ACL, exists bool, err error) {
	var read []zk.ACL
	err = e.read(ctx, r, func() error {
		a, _, err := reader.GetACL(path)
		read = a
		return err
	})
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, false, nil
	case err != nil:
		// read is not looked at: a request ctx abandoned may still set it.
		return nil, false, withAuthOp(err, path, "getACL")
	}
	return read, true, nil
}
