package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Owners of the cluster in the status output.
const (
	ownerKRaft     = "kraft"
	ownerZooKeeper = "zookeeper"
	ownerNone      = "none"
	ownerUnknown   = "unknown"
)

// statusReport is the output of status.
type statusReport struct {
	header
	Migration       migrationView  `json:"migration"`
	Controller      controllerView `json:"controller"`
	ControllerEpoch epochView      `json:"controller_epoch"`
	// Owner is "kraft", "zookeeper", "none" (no controller elected) or
	// "unknown" (/controller does not decode).
	Owner   string `json:"owner"`
	Verdict string `json:"verdict"`
	// Stall is the checkpoint's age and the stall verdict.
	Stall stallView `json:"stall"`
	// Problems lists what needs an operator; empty when none.
	Problems []string `json:"problems"`
	// Credentials says why the digest credentials given could not be
	// verified; absent when they were, or none were given.
	Credentials string `json:"credentials,omitempty"`
}

func setupStatus(a *app, fs *flag.FlagSet) func(context.Context, *zk.Conn) int {
	var stall stallFlags
	stall.register(fs)
	return func(ctx context.Context, conn *zk.Conn) int {
		if err := stall.check(); err != nil {
			return a.fail(err)
		}
		return a.status(ctx, conn, stall)
	}
}

func (a *app) status(ctx context.Context, conn *zk.Conn, stall stallFlags) int {
	c, err := a.readControl(ctx, conn)
	if err != nil {
		return a.fail(err)
	}
	reads, err := a.readCheckpointAgain(ctx, conn, c, stall.window)
	if err != nil {
		return a.fail(err)
	}
	r := statusReport{
		header:    a.header(),
		Migration: c.migration, Controller: c.controller, ControllerEpoch: c.epoch,
		Stall:    judgeStall(c.controller, reads, stall.after, stall.window),
		Problems: controlProblems(c), Credentials: a.unverified,
	}
	r.Owner, r.Verdict = verdict(c)
	if r.Stall.Kind == stallStalled {
		r.Problems = append(r.Problems, r.Stall.Text)
	}

	return a.emit(r, r.Problems, func() { a.printStatus(r, c) })
}

// printStatus prints a status report as text.
func (a *app) printStatus(r statusReport, c control) {
	a.printHeader()
	w := labelWidth(c.migration.Path, c.controller.Path, c.epoch.Path)
	a.field(w, c.migration.Path, describeMigration(c.migration)...)
	a.field(w, c.controller.Path, c.controller.describe())
	a.field(w, c.epoch.Path, c.epoch.describe())
	a.printf("\nOwner: %s. %s\n", r.Owner, r.Verdict)
	a.printStall(r.Stall)
	for _, p := range r.Problems {
		a.printf("Problem: %s\n", p)
	}
	if r.Credentials != "" {
		a.printf("Credentials: %s.\n", r.Credentials)
	}
}

// controlProblems lists what is wrong with the control znodes.
func controlProblems(c control) []string {
	problems := []string{}
	switch c.migration.State {
	case stateNull, stateEmpty:
		problems = append(problems, fmt.Sprintf("%s holds %s data: a KRaft controller cannot parse it and retries forever; run repair-null-migration",
			c.migration.Path, c.migration.State))
	case stateUndecodable:
		problems = append(problems, fmt.Sprintf("%s does not decode (%s): it needs an operator; no command here overwrites it",
			c.migration.Path, c.migration.Error))
	}
	if c.controller.State != stateOK && c.controller.State != stateAbsent {
		problems = append(problems, fmt.Sprintf("%s does not decode (%s)", c.controller.Path, c.controller.Error))
	}
	if c.epoch.State != stateOK && c.epoch.State != stateAbsent {
		problems = append(problems, fmt.Sprintf("%s does not decode (%s)", c.epoch.Path, c.epoch.Error))
	}
	if p := identityProblem(c); p != "" {
		problems = append(problems, p)
	}
	return problems
}

// identityProblem reports a KRaft controller in /controller that /migration
// does not name: the active controller writes /migration under its own id
// and epoch right after claiming (Kafka 3.9 does), so a lasting difference
// means it writes under another controller's identity, or not at all. A
// ZooKeeper-mode broker in /controller is no such problem.
func identityProblem(c control) string {
	ctl, m := c.controller, c.migration
	if ctl.State != stateOK || ctl.Kind != kindKRaft || m.State != stateOK || m.Checkpoint == nil {
		return ""
	}
	cp := m.Checkpoint
	if ctl.BrokerID == cp.KRaftControllerID && ctl.KRaftControllerEpoch == cp.KRaftControllerEpoch {
		return ""
	}
	return fmt.Sprintf("%s names KRaft controller %d (epoch %d), but %s names KRaft controller %d (epoch %d): the active controller has not written %s under its own identity, which it does right after claiming leadership; it may be writing under another controller's",
		ctl.Path, ctl.BrokerID, ctl.KRaftControllerEpoch, m.Path, cp.KRaftControllerID, cp.KRaftControllerEpoch, m.Path)
}

// verdict says which side owns the cluster, and what that means.
func verdict(c control) (owner, text string) {
	ctl, m := c.controller, c.migration
	checkpoint := m.State == stateOK && m.Checkpoint.KRaftMetadataOffset >= 0
	switch {
	case ctl.State == stateAbsent:
		return ownerNone, "No controller is elected: the first to register, a ZooKeeper-mode broker or a KRaft controller in migration mode, takes the cluster."
	case ctl.State != stateOK:
		return ownerUnknown, fmt.Sprintf("%s does not decode, so who controls the cluster cannot be told.", ctl.Path)
	case ctl.Kind == kindKRaft && checkpoint:
		return ownerKRaft, fmt.Sprintf("KRaft controller %d (epoch %d) is the active controller and mirrors its metadata into ZooKeeper (dual-write); ZooKeeper holds it up to offset %d.",
			ctl.BrokerID, ctl.KRaftControllerEpoch, m.Checkpoint.KRaftMetadataOffset)
	case ctl.Kind == kindKRaft:
		return ownerKRaft, fmt.Sprintf("KRaft controller %d (epoch %d) is the active controller; /migration holds no metadata offset yet, so the metadata has not been copied from ZooKeeper.",
			ctl.BrokerID, ctl.KRaftControllerEpoch)
	case checkpoint:
		return ownerZooKeeper, fmt.Sprintf("ZooKeeper-mode broker %d is the controller, yet /migration holds a KRaft checkpoint (offset %d): the cluster was rolled back, or its brokers are not in migration mode. Run rollback-check before it elects leaders.",
			ctl.BrokerID, m.Checkpoint.KRaftMetadataOffset)
	}
	return ownerZooKeeper, fmt.Sprintf("ZooKeeper-mode broker %d is the controller; no KRaft controller has written a checkpoint.", ctl.BrokerID)
}
