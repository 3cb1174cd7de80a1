package monitor

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// scrapeTimeoutHeader is the header in which Prometheus says how long it
// waits for a scrape.
const scrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// scrapeMargin is kept of Prometheus's scrape timeout for the encoding of
// the answer and the way back.
const scrapeMargin = 250 * time.Millisecond

// textContentType is Prometheus's text exposition format, version 0.0.4.
const textContentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves /metrics, the exporter's metrics in Prometheus's text
// format, and /healthz, which answers 200 while the process serves,
// whatever ZooKeeper does.
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
// scrape's own timeout allows, and serves the metrics of that read. The
// metrics are all unlabelled gauges and counters, so they are written
// straight in the text format: a registry and its encoder would cost a
// scrape more than its reads (see BenchmarkMonitorScrape).
func (e *Exporter) serveMetrics(w http.ResponseWriter, req *http.Request) {
	wait := e.cfg.PollTimeout
	if s, err := strconv.ParseFloat(req.Header.Get(scrapeTimeoutHeader), 64); err == nil && s > 0 {
		wait = min(wait, max(time.Duration(s*float64(time.Second))-scrapeMargin, scrapeMargin))
	}
	ctx, cancel := context.WithTimeout(req.Context(), wait)
	defer cancel()
	r := e.refresh(ctx)
	var b bytes.Buffer
	e.writeText(&b, e.samples(r, time.Now()))
	w.Header().Set("Content-Type", textContentType)
	_, _ = w.Write(b.Bytes())
}

// writeText writes samples in the text exposition format.
func (e *Exporter) writeText(b *bytes.Buffer, samples []sample) {
	var num [32]byte
	b.Grow(e.textSize)
	for _, s := range samples {
		b.WriteString(e.text[s.m])
		b.Write(appendValue(num[:0], s.v))
		b.WriteByte('\n')
	}
}

// textHeads returns, for each metric, what the text format writes before
// its value: its HELP and TYPE lines and its name; and the size of the
// text of every metric.
func textHeads(defs [metricCount]def) (heads [metricCount]string, size int) {
	escape := strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	for m, d := range defs {
		name := Namespace + "_" + d.name
		kind := "gauge"
		if d.counter {
			kind = "counter"
		}
		heads[m] = "# HELP " + name + " " + escape.Replace(d.help) + "\n# TYPE " + name + " " + kind + "\n" + name + " "
		size += len(heads[m]) + 32
	}
	return heads, size
}

// appendValue formats a sample's value as the format spells it.
func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
