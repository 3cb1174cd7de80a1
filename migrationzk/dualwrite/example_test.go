package dualwrite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// connectExample connects to the ZooKeeper the examples assume.
func connectExample(ctx context.Context) *zk.Conn {
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	return conn
}

// newWriter makes the Writer of an example.
func newWriter(conn *zk.Conn) *migrationzk.Writer {
	w, err := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))
	if err != nil {
		log.Fatal(err)
	}
	return w
}

// newClient makes the Client of an example.
func newClient(w *migrationzk.Writer) *dualwrite.Client {
	c, err := dualwrite.New(w)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// exampleLeader returns a Client writing under /kafka as KRaft controller
// 3000 with epoch 7, and the State its claim of leadership left.
func exampleLeader(ctx context.Context, conn *zk.Conn) (*dualwrite.Client, migrationzk.State) {
	w := newWriter(conn)
	if err := w.CreateTopLevelPaths(ctx); err != nil {
		log.Fatal(err)
	}
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		log.Fatal(err)
	}
	return newClient(w), s
}

// A KRaft controller in dual-write mirrors each metadata change into
// ZooKeeper through a Client, passing on the State each call returns.
func ExampleNew() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w, err := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))
	if err != nil {
		log.Fatal(err)
	}
	if err := w.CreateTopLevelPaths(ctx); err != nil {
		log.Fatal(err)
	}
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	s, err = w.ClaimLeadership(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		log.Fatal(err)
	}

	c, err := dualwrite.New(w)
	if err != nil {
		log.Fatal(err) // a nil Writer or an invalid option
	}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 1234, 7
	s, err = c.WriteProducerID(ctx, s, 6000)
	switch {
	case errors.Is(err, migrationzk.ErrFenced):
		log.Fatal("another controller took over; this one writes nothing more")
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("checkpoint at /migration version", s.MigrationZkVersion)
}

// CreateTopic writes a topic as a ZooKeeper-mode controller would have
// created it; created again, it writes only what differs.
func ExampleClient_CreateTopic() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1235
	s, err := c.CreateTopic(ctx, s, exampleTopic())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("topic orders at /migration version", s.MigrationZkVersion)
}

// UpdateTopic writes a reassignment: the topic znode's replica lists.
func ExampleClient_UpdateTopic() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	t := exampleTopic()
	t.Partitions[0] = dualwrite.Partition{Replicas: []int32{1, 2, 3, 4}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{1},
		State: t.Partitions[0].State}
	s.KRaftMetadataOffset = 1236
	if _, err := c.UpdateTopic(ctx, s, t); err != nil {
		log.Fatal(err)
	}
}

// DeleteTopic deletes a topic with its partitions and configs; a topic
// that is gone already is no error.
func ExampleClient_DeleteTopic() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1237
	if _, err := c.DeleteTopic(ctx, s, "orders"); err != nil {
		log.Fatal(err)
	}
}

// CreatePartitions adds partitions to an existing topic, each with its
// leader state.
func ExampleClient_CreatePartitions() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1238
	_, err := c.CreatePartitions(ctx, s, "orders", map[int32]dualwrite.Partition{
		2: {Replicas: []int32{3, 1, 2}, State: dualwrite.PartitionState{Leader: 3, ISR: []int32{3, 1, 2}}},
	})
	if err != nil {
		log.Fatal(err)
	}
}

// UpdatePartitions writes leader elections and ISR changes.
func ExampleClient_UpdatePartitions() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1239
	_, err := c.UpdatePartitions(ctx, s, "orders", map[int32]dualwrite.PartitionState{
		0: {Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}},
	})
	if err != nil {
		log.Fatal(err)
	}
}

// DeletePartitions deletes partitions, each state first.
func ExampleClient_DeletePartitions() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1240
	if _, err := c.DeletePartitions(ctx, s, "orders", []int32{2}); err != nil {
		log.Fatal(err)
	}
}

// WriteConfigs writes a broker's configs and the change notification
// ZooKeeper-mode brokers watch, in one transaction.
func ExampleClient_WriteConfigs() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1241
	broker := dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}
	if _, err := c.WriteConfigs(ctx, s, broker, map[string]string{"log.retention.ms": "86400000"}); err != nil {
		log.Fatal(err)
	}
}

// DeleteConfigs deletes a topic's config znode, notifying the brokers.
func ExampleClient_DeleteConfigs() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1242
	if _, err := c.DeleteConfigs(ctx, s, dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}); err != nil {
		log.Fatal(err)
	}
}

// WriteClientQuotas writes a user's quotas and SCRAM credentials.
func ExampleClient_WriteClientQuotas() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1243
	cred := znode.ScramCredential{Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 8192}
	_, err := c.WriteClientQuotas(ctx, s, dualwrite.QuotaEntity{User: "alice"},
		map[string]float64{znode.QuotaProducerByteRate: 1048576, znode.QuotaRequestPercentage: 50},
		map[string]znode.ScramCredential{znode.ScramSHA256: cred})
	if errors.Is(err, migrationzk.ErrInvalidArgument) {
		log.Fatalf("a quota Kafka would refuse: %v", err)
	} else if err != nil {
		log.Fatal(err)
	}
}

// WriteACLs replaces the ACLs of a resource and notifies ZooKeeper-mode
// authorizers.
func ExampleClient_WriteACLs() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1244
	_, err := c.WriteACLs(ctx, s, dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral},
		[]znode.ACLEntry{{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}})
	if err != nil {
		log.Fatal(err)
	}
}

// DeleteACLs deletes the ACLs of a prefixed pattern.
func ExampleClient_DeleteACLs() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1245
	_, err := c.DeleteACLs(ctx, s, dualwrite.ResourcePattern{Type: znode.ResourceGroup, Name: "billing-", PatternType: znode.PatternPrefixed})
	if err != nil {
		log.Fatal(err)
	}
}

// WriteDelegationToken writes a token's information, without its HMAC.
func ExampleClient_WriteDelegationToken() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1246
	now := time.Now().UnixMilli()
	_, err := c.WriteDelegationToken(ctx, s, znode.DelegationToken{TokenID: "tok1", Owner: "User:alice", TokenRequester: "User:alice",
		Renewers: []string{"User:bob"}, IssueTimestamp: now, MaxTimestamp: now + 7*86400000, ExpiryTimestamp: now + 86400000})
	if err != nil {
		log.Fatal(err)
	}
}

// DeleteDelegationToken deletes an expired token.
func ExampleClient_DeleteDelegationToken() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1247
	if _, err := c.DeleteDelegationToken(ctx, s, "tok1"); err != nil {
		log.Fatal(err)
	}
}

// WriteProducerID writes the producer-id block, so that a ZooKeeper-mode
// broker allocates ids above every one KRaft gave out.
func ExampleClient_WriteProducerID() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1248
	if _, err := c.WriteProducerID(ctx, s, 6000); err != nil {
		log.Fatal(err)
	}
	// The block reads back as [6000, 6999]: the next block starts at 7000.
}

// Batch gathers the changes of one KRaft delta into one transaction.
func ExampleClient_Batch() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	b := c.Batch().
		CreateTopic(exampleTopic()).
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}, map[string]string{"retention.ms": "3600000"}).
		WriteProducerID(7000)
	s.KRaftMetadataOffset = 1249
	s, _, err := b.Apply(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("delta at /migration version", s.MigrationZkVersion)
}

// Apply reads what the batch touches and writes what differs, the
// checkpoint last. An invalid change fails it before anything is sent;
// a znode in the way that does not decode is left alone.
func ExampleBatch_Apply() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 1250
	s, results, err := c.Batch().DeletePartitions("orders", []int32{1}).DeleteTopic("payments").Apply(ctx, s)
	var de *znode.DecodeError
	switch {
	case errors.Is(err, migrationzk.ErrInvalidArgument):
		log.Fatalf("invalid change: %v", err)
	case errors.As(err, &de):
		log.Fatalf("%s does not decode; nothing was written", de.Path)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println(len(results), "ops, /migration version", s.MigrationZkVersion)
}

// exampleTopic is topic orders with two partitions of three replicas.
func exampleTopic() dualwrite.Topic {
	id, err := znode.ParseUuid("ASNFZ4mrze_-3LqYdlQyEA")
	if err != nil {
		log.Fatal(err)
	}
	return dualwrite.Topic{Name: "orders", ID: id, Partitions: map[int32]dualwrite.Partition{
		0: {Replicas: []int32{1, 2, 3}, State: dualwrite.PartitionState{Leader: 1, ISR: []int32{1, 2, 3}}},
		1: {Replicas: []int32{2, 3, 1}, State: dualwrite.PartitionState{Leader: 2, ISR: []int32{2, 3, 1}}},
	}}
}

// A Topic is a topic as KRaft's image holds it: its id, and each
// partition's assignment and leader state.
func ExampleTopic() {
	t := exampleTopic()
	fmt.Println(t.Name, t.ID, len(t.Partitions), "partitions")
	// Output: orders ASNFZ4mrze_-3LqYdlQyEA 2 partitions
}

// A Partition in reassignment lists the replicas being added and removed.
func ExamplePartition() {
	p := dualwrite.Partition{
		Replicas:         []int32{1, 2, 3, 4},
		AddingReplicas:   []int32{4},
		RemovingReplicas: []int32{1},
		State:            dualwrite.PartitionState{Leader: 2, LeaderEpoch: 3, ISR: []int32{2, 3, 4}},
	}
	fmt.Println(p.Replicas, "adding", p.AddingReplicas, "removing", p.RemovingReplicas)
	// Output: [1 2 3 4] adding [4] removing [1]
}

// A PartitionState is written with the KRaft controller epoch of the
// State it goes with, as Kafka writes it during dual-write.
func ExamplePartitionState() {
	st := dualwrite.PartitionState{Leader: 1, LeaderEpoch: 4, ISR: []int32{1, 2}, LeaderRecoveryState: 1}
	fmt.Printf("leader %d, epoch %d, ISR %v, recovering %v\n", st.Leader, st.LeaderEpoch, st.ISR, st.LeaderRecoveryState == 1)
	// Output: leader 1, epoch 4, ISR [1 2], recovering true
}

// A ConfigResource names a topic or a broker; an empty broker name is the
// cluster-wide default, stored as <default>.
func ExampleConfigResource() {
	for _, r := range []dualwrite.ConfigResource{
		{Type: dualwrite.TopicConfig, Name: "orders"},
		{Type: dualwrite.BrokerConfig, Name: "1"},
		{Type: dualwrite.BrokerConfig},
	} {
		fmt.Printf("%s %q\n", r.Type, r.Name)
	}
	// Output:
	// topic "orders"
	// broker "1"
	// broker ""
}

// A QuotaEntity names a user, a client id, both, or an IP;
// znode.DefaultEntityName is the default entity of its kind.
func ExampleQuotaEntity() {
	for _, e := range []dualwrite.QuotaEntity{
		{User: "user@1"},
		{User: "user@1", ClientID: "clientA"},
		{User: znode.DefaultEntityName},
		{IP: "8.8.8.8"},
	} {
		fmt.Printf("%+v\n", e)
	}
	// Output:
	// {User:user@1 ClientID: IP:}
	// {User:user@1 ClientID:clientA IP:}
	// {User:<default> ClientID: IP:}
	// {User: ClientID: IP:8.8.8.8}
}

// A ResourcePattern names the resources an ACL set applies to: a literal
// name, or a prefix.
func ExampleResourcePattern() {
	for _, p := range []dualwrite.ResourcePattern{
		{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral},
		{Type: znode.ResourceGroup, Name: "billing-", PatternType: znode.PatternPrefixed},
	} {
		fmt.Println(p.Type, p.Name, p.PatternType)
	}
	// Output:
	// Topic orders LITERAL
	// Group billing- PREFIXED
}

// The config types Kafka's migration writes: topic and broker configs.
// Quotas and SCRAM credentials go through WriteClientQuotas instead.
func ExampleConfigType() {
	fmt.Println(dualwrite.TopicConfig, dualwrite.BrokerConfig)
	// Output: topic broker
}

// A Client's calls each take the State the last one returned. Once
// another controller takes over, the Writer is retired and every later
// call fails without writing.
func ExampleClient() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	for offset := int64(2000); offset < 2003; offset++ {
		s.KRaftMetadataOffset = offset
		var err error
		s, err = c.WriteConfigs(ctx, s, dualwrite.ConfigResource{Type: dualwrite.BrokerConfig}, map[string]string{"num.io.threads": fmt.Sprint(offset)})
		if errors.Is(err, migrationzk.ErrFenced) || errors.Is(err, migrationzk.ErrRetired) {
			log.Fatal("another controller took over")
		} else if err != nil {
			log.Fatal(err)
		}
	}
}

// A Batch records a delta's changes in order; later changes see what
// earlier ones will write, so a topic and its partitions can be created
// together, and a topic created and deleted again writes nothing of it.
func ExampleBatch() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset = 3000
	_, _, err := c.Batch().
		CreateTopic(exampleTopic()).
		CreatePartitions("orders", map[int32]dualwrite.Partition{
			2: {Replicas: []int32{3, 1, 2}, State: dualwrite.PartitionState{Leader: 3, ISR: []int32{3, 1, 2}}},
		}).
		UpdatePartitions("orders", map[int32]dualwrite.PartitionState{0: {Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}}}).
		Apply(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
}
