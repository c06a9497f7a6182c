//! The UCI protocol loop.
//!
//! A reader thread turns stdin into events; the loop here handles them one at a time. A `go`
//! hands the search to its own thread, which prints `info` and `bestmove` and then reports
//! back. While it runs, `isready`, `stop`, `ponderhit` and `quit` are handled at once and
//! every other command waits its turn, so commands always act in the order they were sent.

mod command;
mod input;
mod options;
mod output;
mod search_thread;

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use crate::chess::Position;
use crate::search::{
    self, Limits, SearchJob, Shared, TablebaseUse, ThreadPool, TranspositionTable,
};
use crate::tablebase::Tablebases;
pub use command::{Command, CommandError, GoParams, parse};
pub use input::read_line;
use options::{Effect, Options};
use output::UciReporter;
use search_thread::{SearchTask, SearchThread};

/// What the reader thread and the search thread tell the loop.
enum Event {
    Line(Result<String, String>),
    EndOfInput,
    SearchDone,
}

/// A search in progress.
struct RunningSearch {
    shared: Arc<Shared>,
    /// Hears once the search thread is done with it.
    finished: Receiver<()>,
}

struct Engine {
    position: Position,
    /// Keys of the positions before `position` since its last irreversible move.
    history: Vec<u64>,
    options: Options,
    tt: Arc<TranspositionTable>,
    /// The Syzygy tables of `SyzygyPath`, shared by the search threads.
    tablebases: Arc<Tablebases>,
    /// The search's workers and helper threads; the search thread holds them while it runs.
    pool: Arc<Mutex<ThreadPool>>,
    /// Runs every `go`; started at the first one, and again after a failure.
    search_thread: Option<SearchThread>,
    search: Option<RunningSearch>,
    /// Commands received during a search that must wait for its end.
    pending: VecDeque<String>,
    events: Sender<Event>,
}

/// Runs the UCI loop on stdin and stdout until `quit` or the end of input.
pub fn run() {
    let (sender, events) = mpsc::channel();
    input::spawn_reader(sender.clone(), Event::Line, || Event::EndOfInput);
    let mut engine = Engine::new(sender);
    for event in events {
        let keep_going = match event {
            Event::Line(Ok(line)) => engine.receive(line),
            Event::Line(Err(problem)) => {
                output::error(&problem);
                true
            }
            Event::SearchDone => engine.search_finished(),
            Event::EndOfInput => {
                engine.stop_search();
                false
            }
        };
        if !keep_going {
            break;
        }
    }
}

impl Engine {
    fn new(events: Sender<Event>) -> Engine {
        let options = Options::default();
        let tt = TranspositionTable::new(options.hash_mb)
            .or_else(|_| TranspositionTable::new(1))
            .expect("a 1 MB hash table can be allocated");
        Engine {
            position: Position::startpos(),
            history: Vec::new(),
            tt: Arc::new(tt),
            tablebases: Arc::new(Tablebases::empty()),
            pool: Arc::new(Mutex::new(ThreadPool::new(options.threads))),
            search_thread: None,
            options,
            search: None,
            pending: VecDeque::new(),
            events,
        }
    }

    /// Handles one input line; returns false to quit.
    fn receive(&mut self, line: String) -> bool {
        // A search that has written its bestmove is over, even if its thread has not said so.
        if self.search.as_ref().is_some_and(|s| s.shared.done.load(Ordering::SeqCst)) {
            self.join_search();
            if !self.run_pending() {
                return false;
            }
        }
        if self.search.is_none() {
            return self.execute(&line);
        }
        match line.split_whitespace().next() {
            Some("isready") => output::line("readyok"),
            Some("quit") => {
                self.stop_search();
                return false;
            }
            // `stop` and `ponderhit` act on the running search, unless earlier commands wait
            // (then they belong to a search those will start).
            Some("stop" | "ponderhit") if self.pending.is_empty() => self.signal_search(&line),
            _ => self.pending.push_back(line),
        }
        true
    }

    fn signal_search(&self, line: &str) {
        if let Some(search) = &self.search {
            if line.split_whitespace().next() == Some("stop") {
                search.shared.stop();
            } else {
                search.shared.ponder_hit();
            }
        }
    }

    /// The search thread said it is done: close the search and run what waited. The
    /// message may be stale (its search was already joined when a command arrived after its
    /// `bestmove`); it only concerns the current search if that one has finished.
    fn search_finished(&mut self) -> bool {
        if self.search.as_ref().is_some_and(|s| s.shared.done.load(Ordering::SeqCst)) {
            self.join_search();
        }
        self.run_pending()
    }

    /// Runs the commands that waited, in order: all of them while no search runs; once one
    /// starts a search, the `stop`/`ponderhit` right behind it, and the rest waits again.
    fn run_pending(&mut self) -> bool {
        while let Some(line) = self.pending.pop_front() {
            if self.search.is_none() {
                if !self.execute(&line) {
                    return false;
                }
                continue;
            }
            match line.split_whitespace().next() {
                Some("stop" | "ponderhit") => self.signal_search(&line),
                Some("quit") => {
                    self.stop_search();
                    return false;
                }
                _ => {
                    self.pending.push_front(line);
                    break;
                }
            }
        }
        true
    }

    fn stop_search(&mut self) {
        if let Some(search) = &self.search {
            search.shared.stop();
        }
        self.join_search();
    }

    /// Fresh workers, as many as `Threads` says (they forget their histories).
    fn rebuild_workers(&mut self) {
        search::lock(&self.pool).reset(self.options.threads);
    }

    /// Waits until the search thread is done with the current search.
    fn join_search(&mut self) {
        if let Some(search) = self.search.take()
            && search.finished.recv().is_err()
        {
            output::error("the search thread failed; its state was reset");
            self.search_thread = None;
            self.rebuild_workers();
        }
    }

    /// Executes a command while no search runs; returns false to quit.
    fn execute(&mut self, line: &str) -> bool {
        let mut warnings = Vec::new();
        let parsed = command::parse(line, &mut warnings);
        for warning in &warnings {
            output::error(warning);
        }
        let command = match parsed {
            Ok(command) => command,
            Err(error) => {
                output::error(&error.to_string());
                return true;
            }
        };
        match command {
            Command::Uci => {
                output::line(&format!("id name Zwischen {}", env!("CARGO_PKG_VERSION")));
                output::line("id author the Zwischen developers");
                for declaration in Options::declarations() {
                    output::line(&declaration);
                }
                output::line("uciok");
            }
            Command::Debug | Command::Nothing => {}
            Command::IsReady => output::line("readyok"),
            Command::UciNewGame => {
                self.tt.clear();
                search::lock(&self.pool).clear();
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { fen, moves } => {
                if let Err(problem) = self.set_position(fen.as_deref(), &moves) {
                    output::error(&problem);
                }
            }
            Command::Go(params) => self.go(params),
            Command::Perft(depth) => self.perft(depth),
            Command::Stop | Command::PonderHit => {}
            Command::Quit => return false,
            Command::Display => output::board(&self.position),
            Command::Eval => {
                let text = crate::eval::describe(&crate::eval::current(), &self.position);
                for line in text.lines() {
                    output::line(line);
                }
            }
            Command::Bench(depth) => {
                let depth = depth.unwrap_or(crate::tools::bench::DEFAULT_DEPTH);
                let result =
                    crate::tools::bench::run_with_tables(depth, self.tablebase_use(), false);
                if result.tbhits > 0 {
                    output::line(&format!("info string bench: {} tbhits", result.tbhits));
                }
                output::line(&format!("{} nodes {} nps", result.nodes, result.nps));
            }
        }
        true
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let previous = self.options.clone();
        match self.options.set(name, value) {
            Err(problem) => output::error(&problem),
            Ok(Effect::None) => {}
            Ok(Effect::ClearHash) => self.tt.clear(),
            Ok(Effect::LoadNetwork) => {
                if let Err(problem) = load_network(&self.options.eval_file) {
                    output::error(&problem);
                    self.options = previous;
                }
            }
            Ok(Effect::LoadTablebases) => self.load_tablebases(),
            Ok(Effect::ResizeThreads) => {
                self.rebuild_workers();
            }
            #[cfg(feature = "tune")]
            Ok(Effect::Retuned) => {
                self.rebuild_workers();
            }
            Ok(Effect::ResizeHash) => match TranspositionTable::new(self.options.hash_mb) {
                Ok(tt) => {
                    // Free the old table before the new one is used.
                    self.tt = Arc::new(tt);
                }
                Err(error) => {
                    output::error(&error.to_string());
                    self.options = previous;
                }
            },
        }
    }

    /// Loads the tables of `SyzygyPath` (none for `<empty>`), reporting what was found and
    /// every problem; the tables that loaded are used.
    fn load_tablebases(&mut self) {
        // Unmap the old tables first.
        self.tablebases = Arc::new(Tablebases::empty());
        if self.options.syzygy_path == options::NO_TABLES {
            output::line("info string Syzygy: no tables (SyzygyPath is <empty>)");
            return;
        }
        let (tables, report) = Tablebases::load(&self.options.syzygy_path);
        for error in &report.errors {
            output::error(&error.to_string());
        }
        output::line(&format!("info string {}", tables.summary(&report)));
        self.tablebases = Arc::new(tables);
    }

    /// How the search uses the tables; `None` while none are loaded.
    fn tablebase_use(&self) -> Option<TablebaseUse> {
        (self.tablebases.max_pieces() > 0).then(|| TablebaseUse {
            tables: Arc::clone(&self.tablebases),
            probe_depth: self.options.syzygy_probe_depth,
            probe_limit: self.options.syzygy_probe_limit,
            fifty_move_rule: self.options.syzygy_50_move_rule,
        })
    }

    /// Sets up `position`; on any error the previous position stays.
    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) -> Result<(), String> {
        let mut position = match fen {
            None => Position::startpos(),
            Some(fen) => Position::from_fen(fen).map_err(|e| format!("invalid FEN: {e}"))?,
        };
        let mut history = Vec::new();
        for (i, text) in moves.iter().enumerate() {
            let mv = position
                .parse_uci_move(text, self.options.chess960)
                .map_err(|e| format!("move {} of the move list: {e}", i + 1))?;
            history.push(position.key());
            position.make_move(mv);
            // Positions before a capture or pawn move can never come back.
            if position.halfmove_clock() == 0 {
                history.clear();
            }
        }
        self.position = position;
        self.history = history;
        Ok(())
    }

    fn go(&mut self, params: GoParams) {
        let mut search_moves = Vec::new();
        for text in &params.searchmoves {
            match self.position.parse_uci_move(text, self.options.chess960) {
                Ok(mv) => search_moves.push(mv),
                Err(error) => {
                    // Malformed like any other bad parameter (see `command::parse_go`).
                    output::error(&format!("go searchmoves: {error}; {}", command::FALLBACK_NOTE));
                    return self.go(params.fallback());
                }
            }
        }
        let limits = Limits {
            time: [params.wtime, params.btime],
            increment: [params.winc.unwrap_or(0), params.binc.unwrap_or(0)],
            moves_to_go: params.movestogo.filter(|&m| m > 0),
            depth: params.depth,
            nodes: params.nodes,
            mate: params.mate,
            move_time: params.movetime,
            infinite: params.infinite,
            ponder: params.ponder,
        };
        let job = SearchJob {
            root: self.position,
            history: self.history.clone(),
            limits,
            search_moves,
            multipv: self.options.multipv,
            move_overhead_ms: self.options.move_overhead_ms,
            strength: self.options.strength(),
            tablebases: self.tablebase_use(),
        };
        let shared = Arc::new(Shared::new());
        shared.pondering.store(params.ponder, Ordering::SeqCst);
        let reporter =
            UciReporter { chess960: self.options.chess960, show_wdl: self.options.show_wdl };
        let task = SearchTask {
            job,
            tt: Arc::clone(&self.tt),
            shared: Arc::clone(&shared),
            reporter,
            threads: self.options.threads,
        };
        match self.search_thread().and_then(|thread| thread.search(task)) {
            Ok(finished) => self.search = Some(RunningSearch { shared, finished }),
            Err(error) => {
                output::error(&format!("cannot start the search: {error}"));
                self.search_thread = None;
                // Still answer the `go`, with any legal move.
                let any = self.position.legal_moves().as_slice().first().copied();
                UciReporter { chess960: self.options.chess960, show_wdl: false }
                    .print_best_move(any, None);
            }
        }
    }

    /// The search thread, started if it is not running.
    fn search_thread(&mut self) -> Result<&SearchThread, String> {
        if self.search_thread.is_none() {
            let events = self.events.clone();
            let on_done = move || {
                let _ = events.send(Event::SearchDone);
            };
            let thread = SearchThread::start(Arc::clone(&self.pool), on_done)
                .map_err(|error| error.to_string())?;
            self.search_thread = Some(thread);
        }
        Ok(self.search_thread.as_ref().expect("started above"))
    }

    /// `go perft`: Stockfish's output, counted on `Threads` threads with a perft table of
    /// `Hash` MiB (allocated for this count and freed after).
    fn perft(&self, depth: u32) {
        let split = crate::perft::Perft::new(self.options.threads, self.options.hash_mb)
            .and_then(|perft| perft.divide(&self.position, depth, &crate::perft::no_progress));
        let split = match split {
            Ok(split) => split,
            Err(error) => {
                output::error(&format!("go perft: {error}"));
                return;
            }
        };
        let mut total = 0;
        for (mv, nodes) in split {
            output::line(&format!("{}: {nodes}", mv.to_uci(self.options.chess960)));
            total += nodes;
        }
        if depth == 0 {
            total = 1;
        }
        output::line("");
        output::line(&format!("Nodes searched: {total}"));
    }
}

/// Makes the net in `path` (or the embedded one) current; on failure the current net stays.
fn load_network(path: &str) -> Result<(), String> {
    use crate::eval::{self, Network};
    if path == options::EMBEDDED_NET {
        eval::use_embedded();
        output::line(&format!(
            "info string EvalFile: the embedded network ({})",
            eval::current().identity()
        ));
        return Ok(());
    }
    let kept = eval::current().identity();
    let bytes = std::fs::read(path)
        .map_err(|e| format!("EvalFile '{path}': {e}; the network {kept} stays"))?;
    let net = Network::from_bytes(&bytes)
        .map_err(|e| format!("EvalFile '{path}': {e}; the network {kept} stays"))?;
    let identity = net.identity();
    eval::set_current(net);
    output::line(&format!("info string EvalFile: loaded '{path}' ({identity})"));
    Ok(())
}
