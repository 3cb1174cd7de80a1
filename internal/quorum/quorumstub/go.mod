// The DescribeQuorum stub for the tests of migrationzk lag and monitor:
// franz-go's kfake, which has no DescribeQuorum of its own, answering it
// through its control hook. A module of its own because the only kfake the
// module proxy serves needs go 1.26 and a franz-go of v1.22 (its kversion's
// feature tables), and the main
// module stays at go 1.23.8 with franz-go v1.19.5; the tests build this
// module and run it as a process.
module github.com/kraftmigration/zkwriter/internal/quorum/quorumstub

go 1.26.0

require (
	github.com/twmb/franz-go v1.22.3
	github.com/twmb/franz-go/pkg/kfake v0.0.0-20260918054303-01f206a7e32c
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
)

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
)
