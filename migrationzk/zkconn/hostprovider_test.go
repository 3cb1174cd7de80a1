package zkconn

import (
	"testing"
	"time"
)

// record replaces the provider's sleep so tests see the pauses it takes.
func record(hp *HostProvider) *[]time.Duration {
	var pauses []time.Duration
	hp.sleep = func(d time.Duration) { pauses = append(pauses, d) }
	return &pauses
}

func TestHostProviderReconnectsAtOnce(t *testing.T) {
	hp := &HostProvider{}
	if err := hp.Init([]string{"a:1"}); err != nil {
		t.Fatal(err)
	}
	pauses := record(hp)
	if s, retry := hp.Next(); s != "a:1" || retry {
		t.Fatalf("first Next = %q, %v", s, retry)
	}
	hp.Connected()
	// The connection drops: the next attempt goes out at once, to the
	// same server, without go-zookeeper's one-second pause.
	if s, retry := hp.Next(); s != "a:1" || retry {
		t.Fatalf("Next after disconnect = %q, %v", s, retry)
	}
	if len(*pauses) != 0 {
		t.Fatalf("paused %v before reconnecting", *pauses)
	}
	// That attempt fails: now it backs off, doubling.
	hp.Next()
	hp.Next()
	hp.Next()
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}
	if len(*pauses) != len(want) {
		t.Fatalf("pauses %v, want %v", *pauses, want)
	}
	for i := range want {
		if (*pauses)[i] != want[i] {
			t.Fatalf("pauses %v, want %v", *pauses, want)
		}
	}
	hp.Connected()
	hp.Next()
	hp.Next() // one failure after a fresh connection: back to the first pause
	if got := (*pauses)[len(*pauses)-1]; got != 10*time.Millisecond {
		t.Fatalf("pause after a new connection = %v, want 10ms", got)
	}
}

func TestHostProviderWalksEnsemble(t *testing.T) {
	hp := &HostProvider{MaxBackoff: 15 * time.Millisecond}
	if err := hp.Init([]string{"a:1", "b:1", "c:1"}); err != nil {
		t.Fatal(err)
	}
	pauses := record(hp)
	hp.Next() // a
	s, _ := hp.Next()
	hp.Connected() // connected to b
	if s != "b:1" {
		t.Fatalf("second server = %q", s)
	}
	// b dies: b again first (session likely there), then c, then a, then
	// a pause before the next round.
	var got []string
	for i := 0; i < 4; i++ {
		s, retry := hp.Next()
		if retry {
			t.Fatalf("retryStart after %d attempts", i)
		}
		got = append(got, s)
	}
	if want := []string{"b:1", "c:1", "a:1", "b:1"}; len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("order %v, want %v", got, want)
	}
	if len(*pauses) != 1 || (*pauses)[0] != 10*time.Millisecond {
		t.Fatalf("pauses %v, want one of 10ms after a failed round", *pauses)
	}
	for i := 0; i < 12; i++ {
		hp.Next()
	}
	for _, p := range *pauses {
		if p > 15*time.Millisecond {
			t.Fatalf("pause %v over MaxBackoff", p)
		}
	}
}

func TestHostProviderGivesUp(t *testing.T) {
	hp := &HostProvider{GiveUpAfter: time.Nanosecond}
	if err := hp.Init([]string{"a:1"}); err != nil {
		t.Fatal(err)
	}
	record(hp)
	hp.Next()
	time.Sleep(time.Millisecond)
	if _, retry := hp.Next(); !retry {
		t.Fatal("no retryStart once GiveUpAfter passed: queued requests would never fail with ErrNoServer")
	}
}

func TestHostProviderNoServers(t *testing.T) {
	if err := (&HostProvider{}).Init(nil); err == nil {
		t.Fatal("Init(nil) succeeded")
	}
}
