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
		o.aclPolicy = policy
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

// impossibleVersion is a version no znode has: -1 means any, and versions
// start at 0.
const impossibleVersion = -2

// probeWrite asks ZooKeeper to set path at impossibleVersion.
func (w *Writer) probeWrite(ctx context.Context, path string) error {
	err := w.exec.read(ctx, w.exec.retrier(), func() error {
		_, err := w.exec.conn.Set(path, nil, impossibleVersion)
		return err
	})
	switch {
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNoNode):
		return nil
	case err == nil:
		return fmt.Errorf("migrationzk: probe of %s: ZooKeeper took a write at version %d", path, impossibleVersion)
	case zkerr.Classify(err) == zkerr.Fatal:
		var nae *NotAuthorizedError
		if errors.As(err, &nae) {
			nae.Path, nae.Op = path, "setData"
		}
		return err
	}
	return fmt.Errorf("migrationzk: probe of %s: %w", path, err)
}
