//! The thread that runs every `go`, kept from one search to the next (with the pool's helper
//! threads, nothing is started per move). It prints the search's `info` and `bestmove`
//! itself, then tells the loop that the search is over.

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::search::{self, SearchJob, Shared, ThreadPool, TranspositionTable, lock};

use super::output::{self, UciReporter};

/// One `go`.
pub struct SearchTask {
    pub job: SearchJob,
    pub tt: Arc<TranspositionTable>,
    pub shared: Arc<Shared>,
    pub reporter: UciReporter,
    /// Workers to start afresh with, should the search fail.
    pub threads: usize,
}

/// The search thread and the line to it.
pub struct SearchThread {
    /// `None` only while it is dropped (closing it ends the thread).
    tasks: Option<Sender<(SearchTask, Sender<()>)>>,
    thread: Option<JoinHandle<()>>,
}

impl SearchThread {
    /// Starts the thread; it searches on `pool` and calls `on_done` after each search.
    pub fn start(
        pool: Arc<Mutex<ThreadPool>>,
        on_done: impl Fn() + Send + 'static,
    ) -> std::io::Result<SearchThread> {
        let (tasks, queue) = mpsc::channel::<(SearchTask, Sender<()>)>();
        let thread = std::thread::Builder::new()
            .name("search".into())
            .stack_size(search::STACK_SIZE)
            .spawn(move || {
                for (task, finished) in queue {
                    search_once(&task, &mut lock(&pool));
                    // Let go of the hash table before the loop can replace it (`Hash`).
                    drop(task);
                    // The loop may have stopped waiting (it is quitting): nothing to tell.
                    let _ = finished.send(());
                    on_done();
                }
            })?;
        Ok(SearchThread { tasks: Some(tasks), thread: Some(thread) })
    }

    /// Hands `task` to the thread; the receiver hears once the search is over (its
    /// `bestmove` written), or is closed if the thread died.
    pub fn search(&self, task: SearchTask) -> Result<Receiver<()>, String> {
        let (finished, over) = mpsc::channel();
        let sent = self.tasks.as_ref().is_some_and(|tasks| tasks.send((task, finished)).is_ok());
        if sent { Ok(over) } else { Err("the search thread has ended".to_string()) }
    }
}

impl Drop for SearchThread {
    fn drop(&mut self) {
        self.tasks = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Runs one search. Panic policy: a bug in the search must not take the engine down or leave
/// the GUI waiting. The panic is reported, a legal move is still played, the workers are
/// rebuilt, and the engine keeps serving.
fn search_once(task: &SearchTask, pool: &mut ThreadPool) {
    let searched = panic::catch_unwind(AssertUnwindSafe(|| {
        search::run(&task.job, &task.tt, &task.shared, pool, &task.reporter);
    }));
    if let Err(panic) = searched {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        output::error(&format!("the search failed ({what}); playing a legal move"));
        if !task.shared.done.swap(true, std::sync::atomic::Ordering::SeqCst) {
            let any = task.job.root.legal_moves().as_slice().first().copied();
            task.reporter.print_best_move(any, None);
        }
        pool.reset(task.threads);
    }
}
