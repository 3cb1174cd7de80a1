package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// progress draws a progress bar of a scan on a terminal when it starts,
// and redraws it in place ten times a second.
type progress struct {
	w      io.Writer
	total  int
	start  time.Time
	topics atomic.Int64
	// partitions counts the partition states read.
	partitions atomic.Int64

	stop chan struct{}
	done chan struct{}
}

// progressInterval is how often the bar is redrawn.
const progressInterval = 100 * time.Millisecond

// barWidth is the width of the bar itself, in characters.
const barWidth = 30

func startProgress(w io.Writer, totalTopics int) *progress {
	p := &progress{w: w, total: totalTopics, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	fmt.Fprint(p.w, "\r"+p.line()+"\x1b[K")
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			fmt.Fprint(p.w, "\r"+p.line()+"\x1b[K")
		}
	}
}

// line renders the bar, such as
// "scanning [#########.....................]  30% 300/1,000 topics, 30,000 partitions, 1.2s".
func (p *progress) line() string {
	done := int(p.topics.Load())
	frac := 1.0
	if p.total > 0 {
		frac = float64(done) / float64(p.total)
	}
	filled := int(frac * barWidth)
	return fmt.Sprintf("scanning [%s%s] %3d%% %s/%s topics, %s partitions, %.1fs",
		strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), int(frac*100),
		commas(done), commas(p.total), commas(int(p.partitions.Load())), time.Since(p.start).Seconds())
}

// finish stops drawing and clears the line.
func (p *progress) finish() {
	close(p.stop)
	<-p.done
	fmt.Fprint(p.w, "\r\x1b[K")
}
