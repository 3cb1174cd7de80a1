package zktest_test

import (
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A standing latency makes each round trip cost twice it, and requests in
// flight together overlap rather than queue.
func TestLatencyDelaysEveryFrame(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	p := srv.Path("/latency")
	if _, err := c.Create(p, []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	const latency = 20 * time.Millisecond
	d.SetLatency(latency)
	start := time.Now()
	for i := 0; i < 3; i++ {
		if _, _, err := c.Get(p); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 3*2*latency {
		t.Fatalf("3 round trips took %v, want at least %v", took, 3*2*latency)
	}
	start = time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := c.Get(p); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if took := time.Since(start); took < 2*latency || took > 6*2*latency {
		t.Fatalf("10 overlapping round trips took %v, want about %v", took, 2*latency)
	}
	d.SetLatency(0)
	start = time.Now()
	if _, _, err := c.Get(p); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > latency {
		t.Fatalf("without latency a round trip took %v", took)
	}
}
