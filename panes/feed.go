//go:build linux

// feed.go holds the path from the output stream to the Screen: the reader
// only moves bytes into output.log and a bounded in-memory queue, and the
// screen feeder consumes that queue on its own goroutine. When the feeder
// falls behind in a flood and the queue is full, the reader goes on without
// it: the bytes are in output.log already, and the feeder reads them back
// from there, in order, before the next queued chunk. So the child is never
// slowed by the emulator, memory stays bounded whatever it writes, and the
// screen ends exactly as if every byte had been fed in order; only how soon
// it shows the last byte changes.
//
// Data model: the stream is numbered by offset from 0 (the first byte read).
// The queue holds chunks {off, bytes} in offset order; a hole between the
// feeder's position and the next chunk (or the end of the stream) is a run
// the reader spilled, always wholly in output.log at logBase+offset. The
// reader spills only while the log is healthy: with no log, a log that is
// not a regular file, or after a failed write, a full queue makes it wait
// for the feeder instead (the old back-pressure: nothing is ever lost).
package panes

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// feedChunk is the size of a queue buffer, of a read from the stream and
// of a read back from the log.
const feedChunk = 32 * 1024

// feedQueueBytes bounds the bytes held between reader and feeder, per
// attempt (buffers counted by capacity); a variable for the tests.
var feedQueueBytes = 1 << 20

// feedLagBudget bounds how far the screen may fall behind the reader, in
// the feeder's own time: the reader waits once the feeder would need more
// than this to catch up (at the rate it has been feeding). It is the bound
// on the catch-up after a flood, on how stale a flooding pane looks, and on
// how long a query in the flood waits for its answer; a pane the emulator
// keeps up with never waits. feedLagMin keeps a slow start or a run of tiny
// writes from holding the reader back early.
const (
	feedLagBudget = 250 * time.Millisecond
	feedLagMin    = 256 << 10
	feedLagMax    = 1 << 30
)

// chunkPool recycles queue buffers, so an idle attempt holds none.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, feedChunk); return &b }}

func getChunk() []byte { return (*chunkPool.Get().(*[]byte))[:0] }

func putChunk(b []byte) {
	if cap(b) != feedChunk {
		return
	}
	b = b[:0]
	chunkPool.Put(&b)
}

type feedItem struct {
	off int64
	b   []byte
}

// feedQueue is the bounded queue between the reader and the screen feeder.
type feedQueue struct {
	mu   sync.Mutex
	cond *sync.Cond // signalled on push, pop and close

	items []feedItem
	held  int   // bytes of buffer capacity in items
	max   int   // bound on held
	end   int64 // offset after the last byte read
	fed   int64 // offset after the last byte the feeder took
	done  bool  // the stream ended; end is final

	// log is where spilled runs are read back from (nil: never spill);
	// logBase is the log's size when the attempt opened it.
	log     LogFile
	logBase int64
	logOK   bool // every byte read so far is in the log
	spilled int64

	// nsPerByte is the feeder's recent cost (an average over its writes),
	// which turns feedLagBudget into bytes.
	nsPerByte float64

	// untold is what the reader queued in a flood without waking the
	// feeder yet (push's more; wake).
	untold int
}

// feedWakeBatch is how much a flood queues before the feeder is woken
// for it, rather than once a chunk (docs/performance.md §A pane's output).
const feedWakeBatch = 128 << 10

// maxBehind is how many bytes the feeder may be behind the reader.
func (q *feedQueue) maxBehind() int64 {
	if q.nsPerByte <= 0 {
		return feedLagMin
	}
	return int64(min(max(float64(feedLagBudget)/q.nsPerByte, feedLagMin), feedLagMax))
}

// fedIn records that the feeder wrote n bytes to the screen in d.
func (q *feedQueue) fedIn(n int, d time.Duration) {
	if n < 1024 {
		return // a tiny write costs its overhead, not its bytes
	}
	v := float64(d) / float64(n)
	q.mu.Lock()
	if q.nsPerByte == 0 {
		q.nsPerByte = v
	} else {
		q.nsPerByte += (v - q.nsPerByte) / 8
	}
	q.mu.Unlock()
}

func newFeedQueue(log LogFile, max int) *feedQueue {
	q := &feedQueue{max: max}
	q.cond = sync.NewCond(&q.mu)
	if log != nil {
		if fi, err := log.Stat(); err == nil && fi.Mode().IsRegular() {
			q.log, q.logBase, q.logOK = log, fi.Size(), true
		}
	}
	return q
}

// push hands the feeder b (read at the stream's current end); logged says
// whether all of b reached the log. It waits while the feeder is more than
// feedLagBudget behind; otherwise never while the log holds every byte, and
// for room in the queue when it does not (rather than lose output). more
// says the reader reads on at once (b filled its buffer, a flood): then a
// sleeping feeder is woken only once feedWakeBatch bytes wait, or by wake
// when the reader is about to wait itself.
func (q *feedQueue) push(b []byte, logged, more bool) {
	size := len(b)
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.end-q.fed > q.maxBehind() {
		q.wakeLocked()
		q.cond.Wait()
	}
	off := q.end
	q.end += int64(len(b))
	if !logged {
		q.logOK = false
	}
	// Coalesce into the last queued buffer when it has room: a flood read
	// a few KiB at a time fills buffers, not the queue's slots.
	if n := len(q.items); n > 0 {
		last := &q.items[n-1]
		if last.off+int64(len(last.b)) == off && len(last.b)+len(b) <= cap(last.b) {
			last.b = append(last.b, b...)
			q.queued(size, more)
			return
		}
	}
	for q.held+feedChunk > q.max && !q.logOK && len(q.items) > 0 {
		q.wakeLocked()
		q.cond.Wait()
	}
	if q.held+feedChunk > q.max && q.logOK {
		// Spilled: the feeder reads it back from the log.
		q.spilled += int64(len(b))
		q.queued(size, more)
		return
	}
	for len(b) > 0 {
		c := getChunk()
		n := min(len(b), cap(c))
		c = append(c, b[:n]...)
		q.items = append(q.items, feedItem{off: off, b: c})
		q.held += cap(c)
		off += int64(n)
		b = b[n:]
	}
	q.queued(size, more)
}

// queued wakes the feeder for n bytes just queued, unless more follow at
// once and fewer than feedWakeBatch wait untold.
func (q *feedQueue) queued(n int, more bool) {
	q.untold += n
	if !more || q.untold >= feedWakeBatch {
		q.wakeLocked()
	}
}

// wake wakes the feeder for what waits untold: the reader calls it before
// it waits for more output.
func (q *feedQueue) wake() {
	q.mu.Lock()
	if q.untold > 0 {
		q.wakeLocked()
	}
	q.mu.Unlock()
}

func (q *feedQueue) wakeLocked() {
	q.untold = 0
	q.cond.Broadcast()
}

// close marks the end of the stream.
func (q *feedQueue) close() {
	q.mu.Lock()
	q.done = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// next waits for the feeder's next piece of the stream: a queued chunk
// (give it back with putChunk), or the extent of a spilled run to read from
// the log (b == nil, n bytes at off). ok is false at the end of the stream.
func (q *feedQueue) next() (off int64, b []byte, n int64, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if len(q.items) > 0 {
			it := q.items[0]
			if it.off > q.fed { // a spilled run comes first
				return q.fed, nil, it.off - q.fed, true
			}
			q.items[0] = feedItem{}
			q.items = q.items[1:]
			if len(q.items) == 0 {
				q.items = q.items[:0:0] // let the backing array go
			}
			q.held -= cap(it.b)
			q.fed = it.off + int64(len(it.b))
			q.cond.Broadcast()
			return it.off, it.b, int64(len(it.b)), true
		}
		if q.end > q.fed { // spilled at the tail
			return q.fed, nil, q.end - q.fed, true
		}
		if q.done {
			return q.fed, nil, 0, false
		}
		q.cond.Wait()
	}
}

// readSpilled reads the spilled run [off, off+n) back from the log into
// buf, at most len(buf) bytes, and marks them taken.
func (q *feedQueue) readSpilled(off, n int64, buf []byte) ([]byte, error) {
	buf = buf[:min(int64(cap(buf)), n)]
	k, err := q.log.ReadAt(buf, q.logBase+off)
	if k < len(buf) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		// The log lost them (cut short by hand?): skip the run rather
		// than stall the screen on it.
		q.mu.Lock()
		q.fed = off + n
		q.cond.Broadcast()
		q.mu.Unlock()
		return nil, fmt.Errorf("read back output log at %d: %w", off, err)
	}
	q.mu.Lock()
	q.fed = off + int64(k)
	q.cond.Broadcast()
	q.mu.Unlock()
	return buf, nil
}
