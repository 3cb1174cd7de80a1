package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/monitor"
)

// Defaults of monitor's flags.
const (
	defaultListen       = "127.0.0.1:9740"
	defaultMinPoll      = time.Second
	defaultScanInterval = 5 * time.Minute
	// shutdownGrace is how long scrapes in progress get to finish once
	// the process is told to stop.
	shutdownGrace = 5 * time.Second
)

// monitorFlags are monitor's own flags.
type monitorFlags struct {
	listen       string
	stallAfter   time.Duration
	minPoll      time.Duration
	scanInterval time.Duration
	scanRate     float64
	kafka        kafkaFlags
}

func (f *monitorFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.listen, "listen", defaultListen, "serve /metrics and /healthz at this `address`; loopback unless another address is given (put TLS or authentication in front of it)")
	fs.DurationVar(&f.stallAfter, "stall-after", defaultStallAfter, "migrationzk_checkpoint_stalled is 1 when a KRaft controller holds /controller and /migration was last written longer ago than this")
	fs.DurationVar(&f.minPoll, "min-poll", defaultMinPoll, "scrapes closer together than this share one read of ZooKeeper (and of the quorum)")
	fs.DurationVar(&f.scanInterval, "scan-interval", defaultScanInterval, "scan every partition state for the rollback hazard this long after the last scan ended (0: never)")
	fs.Float64Var(&f.scanRate, "scan-rate", 0, "send the scan's requests at most this many a `second` (0: unlimited)")
	f.kafka.register(fs)
}

func (f monitorFlags) check() error {
	switch {
	case f.stallAfter <= 0:
		return usageError{fmt.Errorf("--stall-after %v: must be positive", f.stallAfter)}
	case f.minPoll < 0:
		return usageError{fmt.Errorf("--min-poll %v: must not be negative", f.minPoll)}
	case f.scanInterval < 0:
		return usageError{fmt.Errorf("--scan-interval %v: must not be negative", f.scanInterval)}
	case f.scanRate < 0:
		return usageError{fmt.Errorf("--scan-rate %v: must not be negative", f.scanRate)}
	}
	if _, _, err := net.SplitHostPort(f.listen); err != nil {
		return usageError{fmt.Errorf("--listen %q: want host:port: %w", f.listen, err)}
	}
	return f.kafka.check(false)
}

func setupMonitor(a *app, fs *flag.FlagSet) func(context.Context, *zk.Conn) int {
	var f monitorFlags
	f.register(fs)
	return func(ctx context.Context, conn *zk.Conn) int {
		if err := f.check(); err != nil {
			return a.fail(err)
		}
		return a.monitor(ctx, conn, f)
	}
}

// monitor serves the exporter until SIGINT or SIGTERM, then stops
// accepting scrapes, lets those in progress finish, and exits 0.
func (a *app) monitor(ctx context.Context, conn *zk.Conn, f monitorFlags) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := a.quorumClient(f.kafka)
	if err != nil {
		return a.fail(err)
	}
	var quorum monitor.QuorumSource
	if c != nil {
		defer c.Close()
		quorum = quorumSource{c}
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, nil))
	e, err := monitor.New(monitor.Config{
		Conn: conn, Root: a.g.root,
		StallAfter: f.stallAfter, MinPoll: f.minPoll, PollTimeout: a.g.timeout,
		ScanInterval: f.scanInterval, ScanRate: f.scanRate, ScanStep: a.g.timeout,
		Quorum: quorum, Logger: logger,
	})
	if err != nil {
		return a.fail(err)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return a.fail(fmt.Errorf("--listen %s: %w", f.listen, err))
	}
	srv := &http.Server{Handler: e.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go e.Run(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("serving /metrics and /healthz", "address", ln.Addr().String())
	select {
	case err = <-served:
		return a.fail(fmt.Errorf("serve %s: %w", ln.Addr(), err))
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		logger.Warn("shut down", "error", err)
	}
	logger.Info("stopped")
	return exitOK
}
