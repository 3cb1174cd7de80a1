package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/kraftdiff"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
)

// Kinds of kraft sync's refusals.
const (
	refuseZooKeeperController = "zookeeper_controller"
	refuseKRaftController     = "kraft_controller"
	refuseControlZnode        = "control_znode"
	refuseClusterID           = "cluster_id"
	refuseMigrationState      = "migration_state"
	refuseOffset              = "offset"
	refusePasswords           = "passwords"
	refuseControllerID        = "controller_id"
)

// refusal is a reason kraft sync writes nothing.
type refusal struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// clusterIDView is the cluster ids kraft sync compares.
type clusterIDView struct {
	// Metadata is the id of the metadata: meta.properties', or
	// --cluster-id's; Source says which.
	Metadata string `json:"metadata"`
	Source   string `json:"source"`
	// ZooKeeper is /cluster/id's, "" when absent or undecodable.
	ZooKeeper string `json:"zookeeper"`
}

// syncInputs is what kraft sync's refusals are decided on.
type syncInputs struct {
	src     kraftSource
	control control
	// clusterID is /cluster/id as read.
	clusterID migrationzk.Znode
	flags     kraftSyncFlags
	// encoder says a password encoder was given.
	encoder bool
}

// refusals lists every reason kraft sync must write nothing, and the
// cluster ids it compared.
func (in syncInputs) refusals() ([]refusal, clusterIDView) {
	out := append(in.controlRefusals(), in.metadataRefusals()...)
	ids, r := in.clusterIDs()
	if r != nil {
		out = append(out, *r)
	}
	return out, ids
}

// controlRefusals are those /controller, /controller_epoch and /migration
// make.
func (in syncInputs) controlRefusals() []refusal {
	var out []refusal
	ctl, epoch, m := in.control.controller, in.control.epoch, in.control.migration
	switch {
	case ctl.State != stateOK && ctl.State != stateAbsent:
		out = append(out, refusal{refuseControlZnode, fmt.Sprintf("%s holds %s data (%s): whether a controller still owns ZooKeeper cannot be told", ctl.Path, ctl.State, ctl.Error)})
	case ctl.State == stateOK && ctl.Ephemeral:
		out = append(out, refusal{refuseZooKeeperController, fmt.Sprintf("%s is ephemeral: %s is live and owns ZooKeeper (the cluster runs in ZooKeeper mode); "+
			"a sync would race its writes. Roll the cluster back only once this command has run, with the brokers stopped", ctl.Path, ctl.who())})
	case ctl.State == stateOK && !in.flags.force:
		out = append(out, refusal{refuseKRaftController, fmt.Sprintf("%s names %s, and Kafka leaves that registration behind when a KRaft controller stops, "+
			"so ZooKeeper cannot tell whether it still runs: a running one would fence this sync, or be fenced by it. Stop every KRaft controller, then pass --force", ctl.Path, ctl.who())})
	}
	if epoch.State != stateOK {
		out = append(out, refusal{refuseControlZnode, fmt.Sprintf("%s is %s (%s): a leadership claim needs it", epoch.Path, epoch.State, epoch.Error)})
	}
	if m.State == stateUndecodable {
		out = append(out, refusal{refuseControlZnode, fmt.Sprintf("%s does not decode (%s): it may be a checkpoint in a format this tool does not know, and is not overwritten", m.Path, m.Error)})
	}
	return out
}

// metadataRefusals are those KRaft's image makes: its migration state,
// its offset, its password configs, a controller to claim as.
func (in syncInputs) metadataRefusals() []refusal {
	var out []refusal
	r := in.src.result
	switch r.MigrationState {
	case kraftmeta.Migration:
	case kraftmeta.PreMigration, kraftmeta.MigrationNone:
		out = append(out, refusal{refuseMigrationState, fmt.Sprintf("KRaft's image is in migration state %s: the migration's load from ZooKeeper is not in it, "+
			"so it lacks ZooKeeper's metadata, and syncing it would delete ZooKeeper's topics", r.MigrationState)})
	default:
		out = append(out, refusal{refuseMigrationState, fmt.Sprintf("KRaft's image is in migration state %s, not MIGRATION: KRaft no longer mirrors its metadata into ZooKeeper", r.MigrationState)})
	}
	if m := in.control.migration; checkpointOffset(m) > r.Offset {
		out = append(out, refusal{refuseOffset, fmt.Sprintf("KRaft's image stands at offset %d, below %s's %d, and Kafka ignores an image older than ZooKeeper's: "+
			"give a directory that holds offset %d (the active controller's, or the most up to date voter's)", r.Offset, m.Path, checkpointOffset(m), checkpointOffset(m))})
	}
	if keys := passwordConfigs(r); len(keys) > 0 && !in.encoder {
		out = append(out, refusal{refusePasswords, fmt.Sprintf("KRaft's image holds password configs (%s) in plain text, and ZooKeeper-mode brokers expect them encoded with "+
			"password.encoder.secret: give --password-encoder-config-file (or $%s) to encode them", joinSecrets(keys), passwordSecretEnv)})
	}
	if _, _, ok := in.controllerID(); !ok {
		out = append(out, refusal{refuseControllerID, "the metadata names no leader (no leader change, no quorum-state): give --controller-id, the id of the KRaft controller to claim as"})
	}
	return out
}

// passwordConfigs lists the password configs of r's image.
func passwordConfigs(r *kraftmeta.Result) []kraftdiff.Secret {
	var out []kraftdiff.Secret
	for res, cfg := range r.Image.Configs {
		for k := range cfg {
			if passwordencoder.IsPasswordConfig(k) {
				out = append(out, kraftdiff.Secret{Entity: kraftdiff.Entity(res), Key: k})
			}
		}
	}
	slices.SortFunc(out, func(a, b kraftdiff.Secret) int {
		return cmp.Or(strings.Compare(a.Entity, b.Entity), strings.Compare(a.Key, b.Key))
	})
	return out
}

// clusterIDs compares the metadata's cluster id with /cluster/id's; the
// refusal is nil when they are the same.
func (in syncInputs) clusterIDs() (clusterIDView, *refusal) {
	var v clusterIDView
	ids := map[string]bool{}
	for _, d := range in.src.dirs {
		if d.Meta.ClusterID != "" {
			ids[d.Meta.ClusterID] = true
		}
	}
	given := in.flags.clusterID
	switch {
	case len(ids) > 1:
		return v, &refusal{refuseClusterID, fmt.Sprintf("the directories' meta.properties name different clusters: %s", strings.Join(slices.Sorted(maps.Keys(ids)), ", "))}
	case len(ids) == 1:
		v.Metadata, v.Source = slices.Collect(maps.Keys(ids))[0], "meta.properties"
		if given != "" && given != v.Metadata {
			return v, &refusal{refuseClusterID, fmt.Sprintf("--cluster-id %s differs from the cluster.id %s of the metadata's meta.properties", given, v.Metadata)}
		}
	case given != "":
		v.Metadata, v.Source = given, "--cluster-id"
	default:
		return v, &refusal{refuseClusterID, "the metadata has no meta.properties, so its cluster id is not known: give --cluster-id, the cluster.id of the KRaft controllers' meta.properties"}
	}
	z := in.clusterID
	id, err := decodeClusterID(z.Data)
	switch {
	case !z.Exists:
		return v, &refusal{refuseClusterID, "/cluster/id is absent from ZooKeeper, so whether the metadata is this cluster's cannot be told"}
	case err != nil:
		return v, &refusal{refuseClusterID, fmt.Sprintf("/cluster/id does not decode (%v), so whether the metadata is this cluster's cannot be told", err)}
	}
	v.ZooKeeper = id
	if id != v.Metadata {
		return v, &refusal{refuseClusterID, fmt.Sprintf("the metadata is of cluster %s (%s), ZooKeeper of cluster %s (/cluster/id): another cluster's metadata", v.Metadata, v.Source, id)}
	}
	return v, nil
}

// decodeClusterID reads /cluster/id as Kafka's ClusterIdZNode does:
// {"version":"1","id":"..."}.
func decodeClusterID(data []byte) (string, error) {
	var v struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return "", fmt.Errorf("invalid JSON: %v", err)
	}
	if v.ID == nil || *v.ID == "" {
		return "", fmt.Errorf("no id")
	}
	return *v.ID, nil
}

// controllerID is the KRaft controller to claim as: --controller-id,
// else the last leader the metadata names; ok is false for none.
func (in syncInputs) controllerID() (id int32, from string, ok bool) {
	switch r, d := in.src.result, in.src.dir; {
	case in.flags.controllerID >= 0:
		return in.flags.controllerID, "--controller-id", true
	case r.LastLeader != nil:
		return r.LastLeader.LeaderID, fmt.Sprintf("the last leader the metadata names, elected in epoch %d at offset %d", r.LastLeader.Epoch, r.LastLeader.Offset), true
	case d.LastLeader != nil:
		return d.LastLeader.LeaderID, fmt.Sprintf("the last leader the metadata names, elected in epoch %d at offset %d", d.LastLeader.Epoch, d.LastLeader.Offset), true
	case d.QuorumState != nil && d.QuorumState.LeaderID >= 0:
		return d.QuorumState.LeaderID, fmt.Sprintf("the leader quorum-state names, in epoch %d", d.QuorumState.LeaderEpoch), true
	}
	return -1, "", false
}

func joinSecrets(s []kraftdiff.Secret) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = x.Entity + " " + x.Key
	}
	return strings.Join(parts, ", ")
}
