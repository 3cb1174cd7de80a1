package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/epochscan"
)

// Verdicts of rollback-check.
const (
	verdictSafe   = "safe"
	verdictAtRisk = "at_risk"
	// verdictIncomplete: some partition states could not be read, so
	// whether a rollback is safe cannot be told for them.
	verdictIncomplete = "incomplete"
)

// textListLimit is how many partitions text output lists; json lists all.
const textListLimit = 20

// checkReport is the output of rollback-check, and the before and after of
// rollback-fix.
type checkReport struct {
	header
	Controller      controllerView `json:"controller"`
	ControllerEpoch epochView      `json:"controller_epoch"`
	// NextControllerEpoch is the epoch the next ZooKeeper-mode controller
	// gets: /controller_epoch + 1 (1 when /controller_epoch is absent).
	NextControllerEpoch int32 `json:"next_controller_epoch"`
	// ElectionEpoch is the epoch leader elections run under after a
	// rollback: the sitting ZooKeeper-mode controller's (the value of
	// /controller_epoch, which it wrote when elected) when one holds
	// /controller, else NextControllerEpoch. A partition stamped with a
	// greater epoch is at risk.
	ElectionEpoch int32 `json:"election_epoch"`
	// HighestStampedEpoch is the highest controller_epoch of any partition
	// state, -1 when there is none.
	HighestStampedEpoch    int32              `json:"highest_stamped_epoch"`
	HighestStampedAt       *stampedPartition  `json:"highest_stamped_at"`
	Topics                 int                `json:"topics"`
	Partitions             int                `json:"partitions"`
	PartitionsWithoutState int                `json:"partitions_without_state"`
	AtRiskCount            int                `json:"at_risk_count"`
	AtRisk                 []stampedPartition `json:"at_risk"`
	UndecodableCount       int                `json:"undecodable_count"`
	Undecodable            []badPartition     `json:"undecodable"`
	ScanSeconds            float64            `json:"scan_seconds"`
	// Verdict is "safe", "at_risk", or "incomplete" when partition states
	// could not be read (whether or not others are at risk).
	Verdict string `json:"verdict"`
	// Remedy says what to do when at risk.
	Remedy string `json:"remedy,omitempty"`
}

func setupRollbackCheck(a *app, fs *flag.FlagSet) func(context.Context, *zk.Conn) int {
	return a.rollbackCheck
}

func (a *app) rollbackCheck(ctx context.Context, conn *zk.Conn) int {
	r, err := a.check(ctx, conn)
	if err != nil {
		return a.fail(err)
	}
	code := exitOK
	if r.AtRiskCount > 0 || r.UndecodableCount > 0 {
		code = exitProblem
	}
	if a.json() {
		a.emitJSON(r)
		return code
	}
	a.printHeader()
	a.printCheck(r)
	return code
}

// electionEpochs returns the next ZooKeeper-mode controller's epoch and
// the epoch leader elections run under after a rollback.
func electionEpochs(c control) (next, election int32, err error) {
	switch c.epoch.State {
	case stateOK:
	case stateAbsent:
		// Kafka creates it holding 0 and the first controller gets 1.
		return 1, epochscan.ElectionEpoch(nil, false), nil
	default:
		return 0, 0, fmt.Errorf("%s holds %s data (%s): the next controller's epoch cannot be told; fix it by hand", c.epoch.Path, c.epoch.State, c.epoch.Error)
	}
	v := c.epoch.Value
	return v + 1, epochscan.ElectionEpoch(&v, c.controller.isZooKeeper()), nil
}

// check reads the control znodes and scans every partition state.
func (a *app) check(ctx context.Context, conn *zk.Conn) (checkReport, error) {
	c, err := a.readControl(ctx, conn)
	if err != nil {
		return checkReport{}, err
	}
	next, election, err := electionEpochs(c)
	if err != nil {
		return checkReport{}, err
	}
	s, err := a.scan(ctx, conn, election)
	if err != nil {
		return checkReport{}, err
	}
	r := checkReport{
		header:     a.header(),
		Controller: c.controller, ControllerEpoch: c.epoch,
		NextControllerEpoch: next, ElectionEpoch: election,
		HighestStampedEpoch: s.Highest, HighestStampedAt: s.HighestAt,
		Topics: s.Topics, Partitions: s.Partitions, PartitionsWithoutState: s.WithoutState,
		AtRiskCount: len(s.AtRisk), AtRisk: s.AtRisk,
		UndecodableCount: len(s.Undecodable), Undecodable: s.Undecodable,
		ScanSeconds: s.Elapsed.Seconds(),
		Verdict:     verdictSafe,
	}
	if r.AtRiskCount > 0 {
		r.Verdict = verdictAtRisk
		r.Remedy = fmt.Sprintf("Raise %s to %d so that the next ZooKeeper-mode controller gets epoch %d, above every stamp, "+
			"and force a controller election by deleting %s: `%s rollback-fix` shows what it would do, and does it with --apply.",
			c.epoch.Path, s.Highest, s.Highest+1, c.controller.Path, a.commandLine())
		if c.controller.isKRaft() {
			r.Remedy = "Once the KRaft controllers are stopped, r" + r.Remedy[1:]
		}
	}
	if r.UndecodableCount > 0 {
		r.Verdict = verdictIncomplete
	}
	return r, nil
}

// commandLine is how to run this tool against the same ZooKeeper.
// It names the TLS, JAAS and digest files, never the credentials.
func (a *app) commandLine() string {
	s := "migrationzk --zk " + a.g.zk
	if a.g.root != "" && a.g.root != a.g.chroot {
		s += " --root " + a.g.root
	}
	if a.g.tlsFile != "" {
		s += " --zk-tls-config-file " + a.g.tlsFile
	}
	if a.g.jaasFile != "" {
		s += " --zk-jaas-config " + a.g.jaasFile
	}
	if a.g.digestFile != "" {
		s += " --zk-digest-file " + a.g.digestFile
	}
	return s
}

func (a *app) printHeader() {
	root := a.g.root
	if root == "" {
		root = "none"
	}
	a.printf("ZooKeeper %s, root %s\n\n", a.g.zk, root)
}

// printCheck prints a check report as text.
func (a *app) printCheck(r checkReport) {
	w := labelWidth(r.Controller.Path, r.ControllerEpoch.Path)
	a.field(w, r.Controller.Path, r.Controller.describe())
	a.field(w, r.ControllerEpoch.Path, r.ControllerEpoch.describe())
	a.printScan(r)
	a.printAtRisk(r)
	a.printUndecodable(r)
	a.printVerdict(r)
}

// printScan says what the scan read and which epochs it compared.
func (a *app) printScan(r checkReport) {
	a.printf("\nScanned %s and %s in %s", pluralVerb(r.Topics, "topic", "topics"), pluralVerb(r.Partitions, "partition state", "partition states"),
		(time.Duration(r.ScanSeconds * float64(time.Second))).Round(time.Millisecond))
	if r.PartitionsWithoutState > 0 {
		a.printf(" (%s without a state yet)", pluralVerb(r.PartitionsWithoutState, "partition", "partitions"))
	}
	a.printf(".\n")
	if r.Controller.isZooKeeper() {
		a.printf("ZooKeeper-mode broker %d is the controller, with epoch %d; leader elections run under it. The next controller would get epoch %d.\n",
			r.Controller.BrokerID, r.ElectionEpoch, r.NextControllerEpoch)
	} else {
		a.printf("The next ZooKeeper-mode controller gets epoch %d.\n", r.NextControllerEpoch)
	}
	if r.HighestStampedAt != nil {
		a.printf("Highest controller epoch stamped on a partition: %d (%s-%d).\n", r.HighestStampedEpoch, r.HighestStampedAt.Topic, r.HighestStampedAt.Partition)
	} else {
		a.printf("No partition state carries a controller epoch.\n")
	}
}

// printAtRisk lists the partitions at risk, up to textListLimit.
func (a *app) printAtRisk(r checkReport) {
	if r.AtRiskCount == 0 {
		return
	}
	a.printf("\nAT RISK: %s stamped with a controller epoch above %d. After a rollback to ZooKeeper mode their leader election aborts (\"written by another controller\") and they stay offline:\n",
		pluralVerb(r.AtRiskCount, "partition is", "partitions are"), r.ElectionEpoch)
	for i, p := range r.AtRisk {
		if i == textListLimit {
			a.printf("  ... and %s more (--output json lists them all)\n", commas(r.AtRiskCount-textListLimit))
			break
		}
		a.printf("  %s-%d  controller_epoch %d\n", p.Topic, p.Partition, p.ControllerEpoch)
	}
}

// printUndecodable lists the partition states that do not decode, up to
// textListLimit.
func (a *app) printUndecodable(r checkReport) {
	if r.UndecodableCount == 0 {
		return
	}
	a.printf("\n%s; check by hand:\n", pluralVerb(r.UndecodableCount,
		"partition state does not decode and was skipped", "partition states do not decode and were skipped"))
	for i, b := range r.Undecodable {
		if i == textListLimit {
			a.printf("  ... and %s more (--output json lists them all)\n", commas(r.UndecodableCount-textListLimit))
			break
		}
		if b.Data == "" {
			a.printf("  %s: %s\n", b.Path, b.Error)
		} else {
			a.printf("  %s: %s (data: %q)\n", b.Path, b.Error, b.Data)
		}
	}
}

// printVerdict prints the verdict line.
func (a *app) printVerdict(r checkReport) {
	switch r.Verdict {
	case verdictIncomplete:
		a.printf("\nVerdict: %s.", incompleteText(r.UndecodableCount))
		if r.AtRiskCount > 0 {
			a.printf(" Of those read, %s at risk. %s", pluralVerb(r.AtRiskCount, "partition is", "partitions are"), r.Remedy)
		} else {
			a.printf(" No partition among those read is stamped with a controller epoch above %d.", r.ElectionEpoch)
		}
		a.printf("\n")
	case verdictAtRisk:
		a.printf("\nVerdict: at risk. %s\n", r.Remedy)
	default:
		a.printf("\nVerdict: safe. No partition is stamped with a controller epoch above %d; a rollback to ZooKeeper mode leaves none offline.\n", r.ElectionEpoch)
	}
}

// incompleteText is the verdict of a check that could not read n
// partition states.
func incompleteText(n int) string {
	return fmt.Sprintf("incomplete: %s could not be read; whether a rollback leaves %s offline cannot be told: check %s by hand",
		pluralVerb(n, "partition state", "partition states"), pick(n, "that partition", "those partitions"), pick(n, "it", "them"))
}

// pick returns one when n is 1, else many.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
