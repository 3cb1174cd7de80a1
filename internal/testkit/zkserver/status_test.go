package zkserver

import "testing"

// srvr's reply gives the mode and last zxid of a serving server, and
// nothing of one that serves no clients.
func TestParseStatus(t *testing.T) {
	srvr := "Zookeeper version: 3.8.0\nLatency min/avg/max: 0/0.5/3\nReceived: 12\nSent: 11\nConnections: 1\nOutstanding: 0\nZxid: 0x100000004\nMode: follower\nNode count: 5"
	if st, err := parseStatus(srvr); err != nil || st != (Status{Mode: "follower", Zxid: 0x100000004}) {
		t.Fatalf("parseStatus = %+v, %v", st, err)
	}
	if st, err := parseStatus("This ZooKeeper instance is not currently serving requests"); err != nil || st != (Status{}) {
		t.Fatalf("not serving: parseStatus = %+v, %v", st, err)
	}
	if _, err := parseStatus("Zxid: 0xnope\nMode: leader"); err == nil {
		t.Fatal("a zxid that is no number was accepted")
	}
}
