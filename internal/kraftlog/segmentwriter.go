package kraftlog

// SegmentWriter builds the bytes of a metadata log segment as a KRaft
// leader appends them: one batch per call, each at the next offset, the
// leader epoch and a timestamp one millisecond after the last. Its zero
// value starts a log at offset 0, epoch 0, timestamp 0; set Next, Epoch
// and Timestamp to continue a log. It is for tests and the sandbox, which
// compose metadata logs; it writes what AppendBatch writes.
type SegmentWriter struct {
	// Next is the offset of the next record.
	Next int64
	// Epoch is the leader epoch of the batches appended.
	Epoch int32
	// Timestamp is the timestamp of the next batch.
	Timestamp int64
	// Bytes are the batches appended.
	Bytes []byte
}

// LeaderChange starts epoch: a control batch holding the LEADER_CHANGE
// record of leader, elected by granting among voters, as a leader of a
// static quorum appends it when elected (LeaderChangeMessage version 0).
func (s *SegmentWriter) LeaderChange(epoch, leader int32, voters, granting []int32) {
	s.Epoch = epoch
	s.append(true, ControlRecord(&LeaderChangeMessage{LeaderID: leader, Voters: votersOf(voters), GrantingVoters: votersOf(granting)}))
}

func votersOf(ids []int32) []Voter {
	vs := make([]Voter, len(ids))
	for i, v := range ids {
		vs[i] = Voter{VoterID: v}
	}
	return vs
}

// Batch appends one batch holding ms, each at version 0 of its record, as
// ZooKeeper's migration writes them; nothing is appended on error (an
// invalid record).
func (s *SegmentWriter) Batch(ms ...Message) error {
	recs := make([]NewRecord, len(ms))
	for i, m := range ms {
		r, err := MetadataRecord(m, 0)
		if err != nil {
			return err
		}
		recs[i] = r
	}
	s.append(false, recs...)
	return nil
}

// append appends a batch of recs.
func (s *SegmentWriter) append(control bool, recs ...NewRecord) {
	s.Bytes = AppendBatch(s.Bytes, NewBatch{BaseOffset: s.Next, Epoch: s.Epoch, Timestamp: s.Timestamp, Control: control, Records: recs})
	s.Next += int64(len(recs))
	s.Timestamp++
}
