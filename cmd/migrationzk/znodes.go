package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// States of a znode in the output.
const (
	stateOK          = "ok"
	stateAbsent      = "absent"
	stateNull        = "null"
	stateEmpty       = "empty"
	stateUndecodable = "undecodable"
)

// readZnodes reads the znodes at paths, relative to the root, through
// the library's Writer.Read: after a sync, retrying over lost connections.
// A missing znode is not an error.
func (a *app) readZnodes(ctx context.Context, conn *zk.Conn, paths ...string) ([]migrationzk.Znode, error) {
	w, err := a.newWriter(conn)
	if err != nil {
		return nil, err
	}
	zs, err := w.Read(ctx, paths...)
	if err != nil {
		return nil, firstJoined(err)
	}
	return zs, nil
}

// readZnode reads the znode at path, relative to the root.
func (a *app) readZnode(ctx context.Context, conn *zk.Conn, path string) (migrationzk.Znode, error) {
	zs, err := a.readZnodes(ctx, conn, path)
	if err != nil {
		return migrationzk.Znode{}, err
	}
	return zs[0], nil
}

// readMigration reads /migration, bounded by --timeout.
func (a *app) readMigration(ctx context.Context, conn *zk.Conn) (migrationView, error) {
	ctx, cancel := a.step(ctx)
	defer cancel()
	z, err := a.readZnode(ctx, conn, znode.MigrationPath)
	if err != nil {
		return migrationView{}, err
	}
	return viewMigration(a.path(znode.MigrationPath), z), nil
}

// dataState classifies data that failed to decode: null, empty or other.
func dataState(data []byte) string {
	switch {
	case data == nil:
		return stateNull
	case len(data) == 0:
		return stateEmpty
	}
	return stateUndecodable
}

// rawText shows undecodable data, cut to a readable length.
func rawText(data []byte) string {
	const max = 200
	if len(data) > max {
		return string(data[:max]) + "..."
	}
	return string(data)
}

// checkpointView is a decoded /migration, with Kafka's key names.
type checkpointView struct {
	KRaftMetadataOffset  int64 `json:"kraft_metadata_offset"`
	KRaftControllerID    int32 `json:"kraft_controller_id"`
	KRaftMetadataEpoch   int32 `json:"kraft_metadata_epoch"`
	KRaftControllerEpoch int32 `json:"kraft_controller_epoch"`
}

// migrationView is /migration in the output.
type migrationView struct {
	Path  string `json:"path"`
	State string `json:"state"`
	// Version is the znode version, -1 when absent.
	Version int32 `json:"version"`
	// Modified is the znode's mtime, RFC 3339 in UTC with milliseconds
	// (timeText).
	Modified   string          `json:"modified,omitempty"`
	Checkpoint *checkpointView `json:"checkpoint,omitempty"`
	Error      string          `json:"error,omitempty"`
	// Data is the raw data when it does not decode.
	Data string `json:"data,omitempty"`
	// mtime is the znode's mtime, zero when absent.
	mtime time.Time
}

// timeLayout is RFC 3339 with the milliseconds ZooKeeper and Kafka keep
// their times in, always three digits, so that times line up.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// timeText is t as the output shows it: RFC 3339 in UTC, with
// milliseconds.
func timeText(t time.Time) string { return t.UTC().Format(timeLayout) }

func viewMigration(path string, r migrationzk.Znode) migrationView {
	v := migrationView{Path: path, State: stateAbsent, Version: -1}
	if !r.Exists {
		return v
	}
	v.Version, v.mtime = r.Version, r.Modified
	v.Modified = timeText(r.Modified)
	m, err := znode.DecodeMigration(r.Data)
	if err != nil {
		v.State, v.Error, v.Data = dataState(r.Data), decodeDetail(err), rawText(r.Data)
		return v
	}
	v.State = stateOK
	v.Checkpoint = &checkpointView{
		KRaftMetadataOffset: m.KRaftMetadataOffset, KRaftControllerID: m.KRaftControllerID,
		KRaftMetadataEpoch: m.KRaftMetadataEpoch, KRaftControllerEpoch: m.KRaftControllerEpoch,
	}
	return v
}

// decodeDetail is a decode error without the data it quotes, which the
// output shows on its own.
func decodeDetail(err error) string {
	var de *znode.DecodeError
	if !errors.As(err, &de) {
		return err.Error()
	}
	s := de.Reason.Error()
	if de.Field != "" {
		s = fmt.Sprintf("field %q: %s", de.Field, s)
	}
	if de.Detail != "" {
		s += ": " + de.Detail
	}
	return s
}

// Kinds of controller.
const (
	kindKRaft     = "kraft"
	kindZooKeeper = "zookeeper"
)

// controllerView is /controller in the output.
type controllerView struct {
	Path    string `json:"path"`
	State   string `json:"state"`
	Version int32  `json:"version"`
	// Kind is "kraft" for a KRaft controller, "zookeeper" for a
	// ZooKeeper-mode broker.
	Kind                 string `json:"kind,omitempty"`
	BrokerID             int32  `json:"broker_id"`
	KRaftControllerEpoch int32  `json:"kraft_controller_epoch"`
	// Elected is the timestamp the controller wrote, RFC 3339.
	Elected   string `json:"elected,omitempty"`
	Ephemeral bool   `json:"ephemeral"`
	Error     string `json:"error,omitempty"`
	Data      string `json:"data,omitempty"`
	// raw is the data as read.
	raw string
}

func viewController(path string, r migrationzk.Znode) controllerView {
	v := controllerView{Path: path, State: stateAbsent, Version: -1, BrokerID: -1, KRaftControllerEpoch: -1}
	if !r.Exists {
		return v
	}
	v.Version, v.Ephemeral, v.raw = r.Version, r.EphemeralOwner != 0, rawText(r.Data)
	c, err := znode.DecodeController(r.Data)
	if err != nil {
		v.State, v.Error, v.Data = dataState(r.Data), decodeDetail(err), rawText(r.Data)
		return v
	}
	v.State, v.BrokerID, v.KRaftControllerEpoch = stateOK, c.BrokerID, c.KRaftControllerEpoch
	v.Kind = kindZooKeeper
	if c.IsKRaft() {
		v.Kind = kindKRaft
	}
	if c.Timestamp > 0 {
		v.Elected = timeText(time.UnixMilli(c.Timestamp))
	}
	return v
}

func (v controllerView) isKRaft() bool     { return v.State == stateOK && v.Kind == kindKRaft }
func (v controllerView) isZooKeeper() bool { return v.State == stateOK && v.Kind == kindZooKeeper }

// who names the controller, such as "KRaft controller 3000 with epoch 7".
func (v controllerView) who() string {
	if v.Kind == kindKRaft {
		return fmt.Sprintf("KRaft controller %d with epoch %d", v.BrokerID, v.KRaftControllerEpoch)
	}
	return fmt.Sprintf("ZooKeeper-mode broker %d", v.BrokerID)
}

// describe says who the controller is, in a few words.
func (v controllerView) describe() string {
	switch {
	case v.State == stateAbsent:
		return "absent: no controller is elected"
	case v.State != stateOK:
		return fmt.Sprintf("%s data, cannot tell who is controller: %s (data: %q)", v.State, v.Error, v.Data)
	}
	node := "persistent"
	if v.Ephemeral {
		node = "ephemeral"
	}
	if v.Kind == kindKRaft {
		return fmt.Sprintf("KRaft controller %d, KRaft epoch %d (version %d, %s)", v.BrokerID, v.KRaftControllerEpoch, v.Version, node)
	}
	return fmt.Sprintf("ZooKeeper-mode broker %d (version %d, %s)", v.BrokerID, v.Version, node)
}

// epochView is /controller_epoch in the output.
type epochView struct {
	Path    string `json:"path"`
	State   string `json:"state"`
	Value   int32  `json:"value"`
	Version int32  `json:"version"`
	Error   string `json:"error,omitempty"`
	Data    string `json:"data,omitempty"`
}

func viewEpoch(path string, r migrationzk.Znode) epochView {
	v := epochView{Path: path, State: stateAbsent, Value: -1, Version: -1}
	if !r.Exists {
		return v
	}
	v.Version = r.Version
	e, err := znode.DecodeControllerEpoch(r.Data)
	if err != nil {
		v.State, v.Error, v.Data = dataState(r.Data), decodeDetail(err), rawText(r.Data)
		return v
	}
	v.State, v.Value = stateOK, e
	return v
}

func (v epochView) describe() string {
	switch {
	case v.State == stateAbsent:
		return "absent"
	case v.State != stateOK:
		return fmt.Sprintf("%s data: %s (data: %q)", v.State, v.Error, v.Data)
	}
	return fmt.Sprintf("%d (version %d)", v.Value, v.Version)
}

// control is the three znodes that say who controls the cluster.
type control struct {
	migration  migrationView
	controller controllerView
	epoch      epochView
}

// readControl reads /migration, /controller and /controller_epoch.
func (a *app) readControl(ctx context.Context, conn *zk.Conn) (control, error) {
	ctx, cancel := a.step(ctx)
	defer cancel()
	var c control
	zs, err := a.readZnodes(ctx, conn, znode.MigrationPath, znode.ControllerPath, znode.ControllerEpochPath)
	if err != nil {
		return c, err
	}
	m, ctl, e := zs[0], zs[1], zs[2]
	c.migration = viewMigration(a.path(znode.MigrationPath), m)
	c.controller = viewController(a.path(znode.ControllerPath), ctl)
	c.epoch = viewEpoch(a.path(znode.ControllerEpochPath), e)
	return c, nil
}
