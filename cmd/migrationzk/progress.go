package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// progress draws a progress bar of a scan on a terminal when it starts,
// and redraws it in place ten times a second. The scan first lists the
// partitions of every topic, then reads their states: the bar counts
// topics listed, then partition states read out of all partitions.
type progress struct {
	w      io.Writer
	topics int
	start  time.Time
	// listed counts the topics whose partitions are listed.
	listed atomic.Int64
	// total is the number of partitions, -1 while they are being listed.
	total atomic.Int64
	// partitions counts the partition states read.
	partitions atomic.Int64

	stop chan struct{}
	done chan struct{}
}

// progressInterval is how often the bar is redrawn.
const progressInterval = 100 * time.Millisecond

// barWidth is the width of the bar itself, in characters.
const barWidth = 30

// newProgress returns a bar for a scan of topics topics, not drawn.
func newProgress(w io.Writer, topics int) *progress {
	p := &progress{w: w, topics: topics, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	p.total.Store(-1)
	return p
}

// startProgress returns a bar for a scan of topics topics, drawn on w
// until finish.
func startProgress(w io.Writer, topics int) *progress {
	p := newProgress(w, topics)
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

// line renders the bar: while partitions are listed, such as
// "listing  [#########.....................]  30% 300/1,000 topics, 1.2s",
// then "scanning [#########.....................]  30% 30,000/100,000 partitions, 1,000 topics, 1.2s".
func (p *progress) line() string {
	elapsed := time.Since(p.start).Seconds()
	total := int(p.total.Load())
	if total < 0 {
		done := int(p.listed.Load())
		return fmt.Sprintf("listing  %s %s/%s topics, %.1fs", bar(done, p.topics), commas(done), commas(p.topics), elapsed)
	}
	done := int(p.partitions.Load())
	return fmt.Sprintf("scanning %s %s/%s partitions, %s topics, %.1fs", bar(done, total), commas(done), commas(total), commas(p.topics), elapsed)
}

// bar renders done out of total as a bar and a percentage.
func bar(done, total int) string {
	frac := 1.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	filled := int(frac * barWidth)
	return fmt.Sprintf("[%s%s] %3d%%", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), int(frac*100))
}

// finish stops drawing, draws the final count once, and clears the line.
func (p *progress) finish() {
	close(p.stop)
	<-p.done
	fmt.Fprint(p.w, "\r"+p.line()+"\x1b[K\r\x1b[K")
}
