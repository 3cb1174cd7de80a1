package main

import (
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestTimesHaveMilliseconds checks that times are printed with three
// decimals whatever their value, so that they line up: an mtime on a
// whole second, on a tenth, and a controller's election timestamp.
// Fault: none (pure).
func TestTimesHaveMilliseconds(t *testing.T) {
	for ms, want := range map[int64]string{
		1732909954000: "2024-11-29T19:52:34.000Z",
		1732909954080: "2024-11-29T19:52:34.080Z",
		1732909954188: "2024-11-29T19:52:34.188Z",
	} {
		v := viewMigration("/migration", migrationzk.Znode{Exists: true, Modified: time.UnixMilli(ms).In(time.FixedZone("CET", 3600)), Data: znode.InitialMigration().Encode()})
		if v.Modified != want {
			t.Errorf("modified %q, want %q", v.Modified, want)
		}
		ctl := znode.Controller{Version: 2, BrokerID: 1, Timestamp: ms, KRaftControllerEpoch: -1}
		if c := viewController("/controller", migrationzk.Znode{Exists: true, Data: ctl.Encode()}); c.Elected != want {
			t.Errorf("elected %q, want %q", c.Elected, want)
		}
	}
}
