package zkserver

import (
	"context"
	"os"
	"time"
)

// StartStandalone starts a standalone server from the local installation
// in a fresh temporary directory, on a free loopback port, and waits until
// it serves clients or ctx ends. stop stops it and removes the directory.
// The examples use it when ZK_SERVERS is not set.
func StartStandalone(ctx context.Context) (p *Process, stop func(), err error) {
	inst, err := FindInstall()
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "zkserver-")
	if err != nil {
		return nil, nil, err
	}
	ports, err := FreePorts(1)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	p, err = Start(inst, Config{Dir: dir, Self: Member{ID: 1, ClientPort: ports[0]}})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	stop = func() {
		_ = p.Stop(10 * time.Second)
		_ = os.RemoveAll(dir)
	}
	if err := p.WaitReady(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return p, stop, nil
}
