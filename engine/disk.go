// disk.go is the engine's disk writer: one goroutine that makes the run's
// small state writes — team-state.json (replaced atomically and fsynced),
// events.jsonl lines, attempts' status.json — in the order the loop asked
// for them, so the loop never waits on the disk and readers never see a
// write half done.
//
// Data model: a FIFO of jobs under a mutex. A team-state.json job that has
// not started yet is replaced by a newer one (the newer state holds every
// change of the older), moved to the back of the queue so the event lines
// queued before it still reach the disk first, and it takes over the older
// job's waiters. A waiter is closed once its job, and every job queued
// before it, is done: do() returns when the state it changed is saved.
// A failed write is reported to onErr (which posts to the loop) and
// remembered; later jobs still run.
package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"syscall"
	"time"
)

type diskJob struct {
	state   []byte                 // team-state.json to write, when not nil
	encode  func() ([]byte, error) // or the team-state.json to encode when the job runs
	write   func() error           // any other write
	onErr   func(error)
	soft    bool // its failure is the caller's to note, not the run's error
	waiters []chan struct{}
}

type diskWriter struct {
	writeState func([]byte) error
	stateErr   func(error)
	// guard, when set, is asked before each batch, when guardWake
	// receives (the state dir may be gone: an inotify event, or a timer
	// where there is none) and after a failed write whether the state dir
	// is still there, and makes it again from the last state when it is not
	// (recreate.go). It reports whether it did; its error stops the run
	// like a failed write.
	guard     func(lastState []byte) (bool, error)
	guardWake <-chan struct{}
	lastState []byte
	// freeReserve, when set, gives back the disk space rostra set aside at
	// the start (statedir/reserve.go); it reports whether there was any. The first
	// write that meets a full disk is retried after it.
	freeReserve func() bool

	mu       sync.Mutex
	jobs     []*diskJob
	closing  bool
	firstErr error
	wake     chan struct{}
	done     chan struct{}
}

func newDiskWriter(writeState func([]byte) error, stateErr func(error), guard func([]byte) (bool, error)) *diskWriter {
	return &diskWriter{writeState: writeState, stateErr: stateErr, guard: guard, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// start runs the writer; set the optional fields before.
func (d *diskWriter) start() { go d.run() }

func (d *diskWriter) enqueue(j *diskJob) {
	d.mu.Lock()
	if j.isState() {
		for i := len(d.jobs) - 1; i >= 0; i-- {
			if old := d.jobs[i]; old.isState() {
				j.waiters = append(old.waiters, j.waiters...)
				d.jobs = append(d.jobs[:i], d.jobs[i+1:]...)
				break
			}
		}
	}
	d.jobs = append(d.jobs, j)
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// saveState queues a new team-state.json; waiters are closed once it is on
// disk (or failed).
func (d *diskWriter) saveState(data []byte, waiters []chan struct{}) {
	d.enqueue(&diskJob{state: data, onErr: d.stateErr, waiters: waiters})
}

// saveStateOf is saveState with the state encoded when the job runs: a
// state replaced before its turn is never encoded (a burst of attempt
// starts encoded the whole state once a batch: docs/performance.md
// §Memory of a quiet pane). encode runs on the writer's goroutine.
func (d *diskWriter) saveStateOf(encode func() ([]byte, error), waiters []chan struct{}) {
	d.enqueue(&diskJob{encode: encode, onErr: d.stateErr, waiters: waiters})
}

func (j *diskJob) isState() bool { return j.state != nil || j.encode != nil }

// queue adds a write; onErr, if not nil, hears of its failure.
func (d *diskWriter) queue(write func() error, onErr func(error)) {
	d.enqueue(&diskJob{write: write, onErr: onErr})
}

// queueSoft adds a write whose failure onErr notes and the run survives
// (an attempt's status.json).
func (d *diskWriter) queueSoft(write func() error, onErr func(error)) {
	d.enqueue(&diskJob{write: write, onErr: onErr, soft: true})
}

// barrier closes waiters once every job queued so far is done.
func (d *diskWriter) barrier(waiters []chan struct{}) {
	d.enqueue(&diskJob{waiters: waiters})
}

func (d *diskWriter) run() {
	defer close(d.done)
	for {
		d.mu.Lock()
		jobs := d.jobs
		d.jobs = nil
		closing := d.closing
		d.mu.Unlock()
		if len(jobs) == 0 {
			if closing {
				return
			}
			select {
			case <-d.wake:
			case <-d.guardWake:
				d.runGuard()
			}
			continue
		}
		d.runGuard()
		for _, j := range jobs {
			err := d.do(j)
			for try := 0; err != nil && try < deletedRetries; try++ {
				if !d.runGuard() {
					if !errors.Is(err, fs.ErrNotExist) {
						break
					}
					// A name the write made was deleted under it: an rm -rf
					// of the state dir under way, which the guard sees once
					// the folder itself is gone. Let it finish.
					time.Sleep(deletedPause)
				}
				err = d.do(j) // the folder was made again under it, or may be
			}
			if errors.Is(err, syscall.ENOSPC) && d.freeReserve != nil && d.freeReserve() {
				if d.do(j) == nil {
					// Saved, but the disk is full: the run stops all the
					// same, with the space for its last state.
					full := fmt.Errorf("%w (the space rostra kept in reserve was freed to save the run's last state)", err)
					d.mu.Lock()
					if d.firstErr == nil {
						d.firstErr = full
					}
					d.mu.Unlock()
					d.stateErr(full)
					err = nil
				}
			}
			if err != nil {
				d.mu.Lock()
				if d.firstErr == nil && !j.soft {
					d.firstErr = err
				}
				d.mu.Unlock()
				if j.onErr != nil {
					j.onErr(err)
				}
			}
			for _, c := range j.waiters {
				close(c)
			}
		}
	}
}

// deletedRetries and deletedPause bound how long a write whose files are
// being deleted (rm -rf of the state dir) waits for the deletion to end
// before it counts as failed.
const (
	deletedRetries = 10
	deletedPause   = 20 * time.Millisecond
)

func (d *diskWriter) do(j *diskJob) error {
	if j.encode != nil {
		data, err := j.encode()
		if err != nil {
			return err
		}
		j.state, j.encode = data, nil
	}
	switch {
	case j.state != nil:
		d.lastState = j.state
		return d.writeState(j.state)
	case j.write != nil:
		return j.write()
	}
	return nil
}

// runGuard asks the guard; true when it made the state dir again.
func (d *diskWriter) runGuard() bool {
	if d.guard == nil {
		return false
	}
	made, err := d.guard(d.lastState)
	if err != nil {
		d.mu.Lock()
		if d.firstErr == nil {
			d.firstErr = err
		}
		d.mu.Unlock()
		d.stateErr(err)
	}
	return made
}

// close finishes every queued job and stops the writer.
func (d *diskWriter) close() {
	d.mu.Lock()
	d.closing = true
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
	<-d.done
}

// err is the first write that failed.
func (d *diskWriter) err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.firstErr
}
