//! The search threads, kept from one search to the next. The main search runs on the thread
//! that calls [`super::run`]; each helper has a thread of its own, started with the pool, that
//! sleeps between searches. No thread is started per move, and each thread keeps its worker
//! (histories and all) across searches, as before.

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::worker::{STACK_SIZE, Worker};
use super::{SearchJob, SearchResult, Shared, Silent, TranspositionTable};

/// One search for a helper: the same job, table and shared state as the main thread's.
struct HelperTask {
    job: Arc<SearchJob>,
    tt: Arc<TranspositionTable>,
    shared: Arc<Shared>,
}

/// A helper thread and the lines to and from it.
struct Helper {
    /// Shared with the thread, which holds the lock while it searches.
    worker: Arc<Mutex<Worker>>,
    /// `None` only while the helper is dropped (closing it ends the thread).
    tasks: Option<Sender<HelperTask>>,
    /// One answer per task: the helper's result, or `None` when its search panicked.
    results: Receiver<Option<SearchResult>>,
    thread: Option<JoinHandle<()>>,
}

/// The workers of a search and the threads that run the helpers.
pub struct ThreadPool {
    main: Worker,
    helpers: Vec<Helper>,
    /// Why fewer helper threads run than were asked for, if so (said at every search).
    start_error: Option<String>,
}

impl ThreadPool {
    /// A pool of `threads` workers (at least one): the caller's thread and `threads - 1`
    /// helper threads. Helpers that cannot be started are left out, and each search says so.
    pub fn new(threads: usize) -> ThreadPool {
        let mut helpers = Vec::new();
        let mut start_error = None;
        for id in 1..threads.max(1) {
            match Helper::start(id) {
                Ok(helper) => helpers.push(helper),
                Err(error) => {
                    let missing = threads - id;
                    start_error = Some(format!("cannot start {missing} search thread(s): {error}"));
                    break;
                }
            }
        }
        ThreadPool { main: Worker::new(0), helpers, start_error }
    }

    /// Starts afresh with `threads` workers; the old helper threads end first.
    pub fn reset(&mut self, threads: usize) {
        self.helpers.clear();
        *self = ThreadPool::new(threads);
    }

    /// Forgets everything the workers learnt (`ucinewgame`).
    pub fn clear(&mut self) {
        self.main.clear();
        for helper in &self.helpers {
            lock(&helper.worker).clear();
        }
    }

    /// The main thread's worker (for its statistics after a search).
    pub fn main_worker(&self) -> &Worker {
        &self.main
    }

    pub(super) fn start_error(&self) -> Option<&str> {
        self.start_error.as_deref()
    }

    /// Runs `main_search` on the caller's thread (the main worker) while every helper
    /// searches `job`; when it returns, stops the helpers and collects their results. A
    /// panic of the main search is passed on once the helpers have stopped, so the pool is
    /// idle and usable again whatever happens.
    pub(super) fn search<F>(
        &mut self,
        job: &SearchJob,
        tt: &Arc<TranspositionTable>,
        shared: &Arc<Shared>,
        main_search: F,
    ) -> (SearchResult, Vec<SearchResult>)
    where
        F: FnOnce(&mut Worker) -> SearchResult,
    {
        let mut started = Vec::new();
        if !self.helpers.is_empty() {
            let job = Arc::new(job.clone());
            for (index, helper) in self.helpers.iter().enumerate() {
                let task = HelperTask {
                    job: Arc::clone(&job),
                    tt: Arc::clone(tt),
                    shared: Arc::clone(shared),
                };
                if helper.tasks.as_ref().is_some_and(|tasks| tasks.send(task).is_ok()) {
                    started.push(index);
                }
            }
        }
        let main = panic::catch_unwind(AssertUnwindSafe(|| main_search(&mut self.main)));
        shared.stop();
        let helper_results: Vec<SearchResult> = started
            .into_iter()
            .filter_map(|index| self.helpers[index].results.recv().ok().flatten())
            .collect();
        match main {
            Ok(result) => (result, helper_results),
            Err(payload) => {
                self.main = Worker::new(0);
                panic::resume_unwind(payload)
            }
        }
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // Closing the line ends the thread's loop once it is idle.
        self.tasks = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Helper {
    fn start(id: usize) -> std::io::Result<Helper> {
        let worker = Arc::new(Mutex::new(Worker::new(id)));
        let (tasks, task_queue) = mpsc::channel::<HelperTask>();
        let (result_sender, results) = mpsc::channel();
        let thread_worker = Arc::clone(&worker);
        let thread = std::thread::Builder::new()
            .name(format!("helper {id}"))
            .stack_size(STACK_SIZE)
            .spawn(move || {
                for task in task_queue {
                    let mut worker = lock(&thread_worker);
                    let searched = panic::catch_unwind(AssertUnwindSafe(|| {
                        worker.iterative_deepening(&task.job, &task.tt, &task.shared, &Silent)
                    }));
                    if searched.is_err() {
                        // Its state may be half-updated: start this helper afresh.
                        *worker = Worker::new(id);
                    }
                    drop(worker);
                    if result_sender.send(searched.ok()).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Helper { worker, tasks: Some(tasks), results, thread: Some(thread) })
    }
}

/// What is behind `mutex`, also after a panic elsewhere poisoned it: the panicking search
/// replaces what it held (a worker, or the whole pool), so what is behind the lock is whole.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
