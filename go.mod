module github.com/kraftmigration/zkwriter

go 1.23

require (
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/go-zookeeper/zk v1.0.4
)

require go.uber.org/multierr v1.11.0

require github.com/anishathalye/porcupine v1.3.1
