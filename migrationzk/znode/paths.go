package znode

// TopLevelPaths returns the persistent paths Kafka creates when a broker or
// a migrating KRaft controller starts (KafkaZkClient.createTopLevelPaths),
// in Kafka's order. Their parents (/brokers, /config, /admin) are created on
// the way.
func TopLevelPaths() []string {
	return []string{
		"/consumers",
		"/brokers/ids",
		TopicsPath,
		"/config/changes",
		"/admin/delete_topics",
		"/brokers/seqid",
		"/isr_change_notification",
		ProducerIDBlockPath,
		"/log_dir_event_notification",
		"/config/topics",
		"/config/clients",
		"/config/users",
		"/config/brokers",
		"/config/ips",
	}
}
