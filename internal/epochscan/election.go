package epochscan

// ElectionEpoch returns the epoch leader elections run under after a
// rollback to ZooKeeper mode, the threshold above which a stamped
// partition is at risk: the sitting controller's epoch, the value of
// /controller_epoch, when a ZooKeeper-mode broker holds /controller;
// otherwise the epoch the next ZooKeeper-mode controller gets,
// /controller_epoch + 1 (1 when controllerEpoch is nil: Kafka creates
// /controller_epoch holding 0).
func ElectionEpoch(controllerEpoch *int32, zooKeeperController bool) int32 {
	if controllerEpoch == nil {
		return 1
	}
	if zooKeeperController {
		return *controllerEpoch
	}
	return *controllerEpoch + 1
}
