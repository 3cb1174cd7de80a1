package zkerr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
)

func TestClassify(t *testing.T) {
	for err, want := range map[error]Class{
		nil:               OK,
		zk.ErrNoServer:    NotSent,
		zk.ErrShortBuffer: NotSent,
		zk.ErrBadVersion:  Rejected,
		fmt.Errorf("multi: %w", zk.ErrNodeExists): Rejected,
		zk.ErrNoNode:               Rejected,
		zk.ErrNotEmpty:             Rejected,
		zk.ErrNoAuth:               Fatal,
		zk.ErrAuthFailed:           Fatal,
		zk.ErrInvalidACL:           Fatal,
		zk.ErrConnectionClosed:     Unknown,
		zk.ErrSessionExpired:       Unknown,
		zk.ErrSessionMoved:         Unknown,
		errors.New("read: EOF"):    Unknown,
		errors.New("unknown -112"): Unknown,
	} {
		if got := Classify(err); got != want {
			t.Errorf("Classify(%v) = %v, want %v", err, got, want)
		}
	}
}

func TestRetryable(t *testing.T) {
	for err, want := range map[error]bool{
		zk.ErrConnectionClosed: true,
		zk.ErrNoServer:         true,
		zk.ErrSessionExpired:   true,
		zk.ErrBadVersion:       false,
		zk.ErrNoAuth:           false,
		nil:                    false,
	} {
		if got := Retryable(err); got != want {
			t.Errorf("Retryable(%v) = %v, want %v", err, got, want)
		}
	}
}
