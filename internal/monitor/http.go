package monitor

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// scrapeTimeoutHeader is the header in which Prometheus says how long it
// waits for a scrape.
const scrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// scrapeMargin is kept of Prometheus's scrape timeout for the encoding of
// the answer and the way back.
const scrapeMargin = 250 * time.Millisecond

// Handler serves /metrics, the exporter's metrics, and /healthz, which
// answers 200 while the process serves, whatever ZooKeeper does.
func (e *Exporter) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", e.serveMetrics)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}

// serveMetrics reads, waiting no longer than PollTimeout nor than the
// scrape's own timeout allows, and serves the metrics of that read.
func (e *Exporter) serveMetrics(w http.ResponseWriter, req *http.Request) {
	wait := e.cfg.PollTimeout
	if s, err := strconv.ParseFloat(req.Header.Get(scrapeTimeoutHeader), 64); err == nil && s > 0 {
		wait = min(wait, max(time.Duration(s*float64(time.Second))-scrapeMargin, scrapeMargin))
	}
	ctx, cancel := context.WithTimeout(req.Context(), wait)
	defer cancel()
	r, now := e.refresh(ctx), time.Now()
	reg := prometheus.NewRegistry()
	reg.MustRegister(readingCollector{e: e, r: r, now: now})
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, req)
}

// readingCollector collects the metrics of one read. It describes
// nothing, so that registering it for a scrape costs nothing.
type readingCollector struct {
	e   *Exporter
	r   *reading
	now time.Time
}

func (c readingCollector) Describe(chan<- *prometheus.Desc) {}

func (c readingCollector) Collect(ch chan<- prometheus.Metric) { c.e.collect(ch, c.r, c.now) }
