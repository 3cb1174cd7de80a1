package zkmetrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const ageHelp = "Seconds since the modification time of the last /migration checkpoint confirmed in ZooKeeper (Writer.ConfirmedModified), " +
	"against this host's clock; absent before the first. It grows while checkpoint writes are stuck."

// collectAge sends the checkpoint's age, unless the current Writer has
// confirmed none. A clock behind ZooKeeper's reads as age 0.
func (c *Collector) collectAge(ch chan<- prometheus.Metric) {
	c.mu.RLock()
	at := c.w.ConfirmedModified()
	c.mu.RUnlock()
	if at.IsZero() {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, max(0, time.Since(at).Seconds()))
}
