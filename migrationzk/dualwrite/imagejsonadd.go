package dualwrite

import (
	"errors"
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// addTopic adds a topic read from its JSON form.
func (d *imageDecoder) addTopic(tj topicJSON) error {
	if _, dup := d.img.Topics[tj.Name]; dup {
		return fmt.Errorf("%w: topic %q", errDuplicate, tj.Name)
	}
	t := Topic{Name: tj.Name, Partitions: make(map[int32]Partition, len(tj.Partitions))}
	if tj.ID != "" {
		id, err := znode.ParseUuid(tj.ID)
		if err != nil {
			return fmt.Errorf("topic %q: id: %w", tj.Name, err)
		}
		t.ID = id
	}
	for _, pj := range tj.Partitions {
		if pj.ID == nil {
			return fmt.Errorf("topic %q: a partition without an id", tj.Name)
		}
		if _, dup := t.Partitions[*pj.ID]; dup {
			return fmt.Errorf("%w: topic %q partition %d", errDuplicate, tj.Name, *pj.ID)
		}
		if d.version == 1 && pj.Replicas == nil {
			// Version 1's form of a partition outside the assignment.
			tj.Unassigned = append(tj.Unassigned, unassignedJSON{ID: pj.ID, State: pj.State})
			continue
		}
		t.Partitions[*pj.ID] = partitionFromJSON(pj)
	}
	if err := addUnassignedJSON(&t, tj.Unassigned); err != nil {
		return err
	}
	d.img.Topics[t.Name] = t
	return nil
}

// addUnassignedJSON adds to t its partitions outside the assignment, read
// from their JSON form.
func addUnassignedJSON(t *Topic, ujs []unassignedJSON) error {
	for _, uj := range ujs {
		if uj.ID == nil {
			return fmt.Errorf("topic %q: an unassigned partition without an id", t.Name)
		}
		_, assigned := t.Partitions[*uj.ID]
		if _, dup := t.Unassigned[*uj.ID]; dup || assigned {
			return fmt.Errorf("%w: topic %q partition %d", errDuplicate, t.Name, *uj.ID)
		}
		if t.Unassigned == nil {
			t.Unassigned = map[int32]UnassignedPartition{}
		}
		var u UnassignedPartition
		if s := uj.State; s != nil {
			u.State = &PartitionState{Leader: s.Leader, LeaderEpoch: s.LeaderEpoch, ISR: s.ISR, LeaderRecoveryState: s.LeaderRecoveryState}
		}
		t.Unassigned[*uj.ID] = u
	}
	return nil
}

// partitionFromJSON is the partition of a JSON form.
func partitionFromJSON(pj partitionJSON) Partition {
	p := Partition{Replicas: pj.Replicas, noState: pj.State == nil}
	if pj.AddingReplicas != nil {
		p.AddingReplicas = *pj.AddingReplicas
	}
	if pj.RemovingReplicas != nil {
		p.RemovingReplicas = *pj.RemovingReplicas
	}
	if s := pj.State; s != nil {
		p.State = PartitionState{Leader: s.Leader, LeaderEpoch: s.LeaderEpoch, ISR: s.ISR, LeaderRecoveryState: s.LeaderRecoveryState}
	}
	return p
}

// addConfig adds a config resource's configs.
func (d *imageDecoder) addConfig(cj configJSON) error {
	r := ConfigResource{Type: cj.Type, Name: cj.Name}
	if _, dup := d.img.Configs[r]; dup {
		return fmt.Errorf("%w: config resource %s %q", errDuplicate, r.Type, r.Name)
	}
	d.img.Configs[r] = cj.Configs
	return nil
}

// addQuota adds an entity's quotas.
func (d *imageDecoder) addQuota(qj quotaJSON) error {
	e := QuotaEntity(qj.Entity)
	if _, dup := d.img.ClientQuotas[e]; dup {
		return fmt.Errorf("%w: quota entity %+v", errDuplicate, e)
	}
	d.img.ClientQuotas[e] = qj.Quotas
	return nil
}

// addScram adds a user's SCRAM credentials.
func (d *imageDecoder) addScram(sj scramJSON) error {
	if _, dup := d.img.Scram[sj.User]; dup {
		return fmt.Errorf("%w: SCRAM user %q", errDuplicate, sj.User)
	}
	var creds map[string]znode.ScramCredential
	if sj.Credentials != nil {
		creds = make(map[string]znode.ScramCredential, len(sj.Credentials))
	}
	for m, c := range sj.Credentials {
		creds[m] = znode.ScramCredential(c)
	}
	d.img.Scram[sj.User] = creds
	return nil
}

// addACLs adds a resource pattern's ACL set.
func (d *imageDecoder) addACLs(aj aclJSON) error {
	p := ResourcePattern{Type: aj.ResourceType, Name: aj.Name, PatternType: aj.PatternType}
	if _, dup := d.img.ACLs[p]; dup {
		return fmt.Errorf("%w: resource pattern %s %s %q", errDuplicate, p.PatternType, p.Type, p.Name)
	}
	var entries []znode.ACLEntry
	if aj.Entries != nil {
		entries = make([]znode.ACLEntry, len(aj.Entries))
	}
	for i, e := range aj.Entries {
		entries[i] = znode.ACLEntry(e)
	}
	d.img.ACLs[p] = entries
	return nil
}

// addToken adds a delegation token.
func (d *imageDecoder) addToken(tj tokenJSON) error {
	if _, dup := d.img.DelegationTokens[tj.ID]; dup {
		return fmt.Errorf("%w: delegation token %q", errDuplicate, tj.ID)
	}
	t := znode.DelegationToken{TokenID: tj.ID, Owner: tj.Owner, TokenRequester: tj.TokenRequester, Renewers: tj.Renewers,
		IssueTimestamp: tj.IssueTimestamp, MaxTimestamp: tj.MaxTimestamp, ExpiryTimestamp: tj.ExpiryTimestamp}
	if tj.TokenID != nil {
		t.TokenID = *tj.TokenID
	}
	d.img.DelegationTokens[tj.ID] = t
	return nil
}

// addUndecodable adds an undecodable znode.
func (d *imageDecoder) addUndecodable(uj undecodableJSON) error {
	u := UndecodableZnode{Path: uj.Path}
	if uj.Error != "" {
		u.Err = errors.New(uj.Error)
	}
	d.img.Undecodable = append(d.img.Undecodable, u)
	return nil
}
