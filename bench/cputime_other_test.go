//go:build !unix

package bench_test

import "time"

// cpuTime returns zero where the process's CPU time is not at hand.
func cpuTime() time.Duration { return 0 }
