//! A UCI session with the engine binary over pipes, for the integration tests.

#![allow(dead_code)]

pub mod reference;
pub mod starts;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Everything read so far, for failure messages.
    pub transcript: Vec<String>,
}

/// A generous bound for anything that should be quick.
pub const SOON: Duration = Duration::from_secs(10);

impl Engine {
    pub fn start() -> Engine {
        Engine::start_with_env(&[])
    }

    pub fn start_with_env(vars: &[(&str, &str)]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zwischen"))
            .envs(vars.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // A deliberately panicking engine would only clutter the test output.
            .stderr(if vars.is_empty() { Stdio::inherit() } else { Stdio::null() })
            .spawn()
            .expect("the engine binary starts");
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, lines, transcript: Vec::new() }
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the engine's input (end of file).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` after `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.transcript.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one satisfies `matches`; returns it and the lines before it.
    pub fn expect(
        &mut self,
        what: &str,
        timeout: Duration,
        matches: impl Fn(&str) -> bool,
    ) -> (String, Vec<String>) {
        let deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) if matches(&line) => return (line, before),
                Some(line) => before.push(line),
                None => panic!(
                    "no {what} within {timeout:?}; transcript:\n{}",
                    self.transcript.join("\n")
                ),
            }
        }
    }

    pub fn expect_prefix(&mut self, prefix: &str, timeout: Duration) -> (String, Vec<String>) {
        self.expect(prefix, timeout, |l| l.starts_with(prefix))
    }

    /// Asserts that nothing matching arrives for `wait`.
    pub fn expect_silence(&mut self, wait: Duration, forbidden: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + wait;
        while let Some(line) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            assert!(
                !forbidden(&line),
                "unexpected line {line:?}; transcript:\n{}",
                self.transcript.join("\n")
            );
        }
    }

    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.expect("readyok", SOON, |l| l == "readyok").1
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `go ...` and returns the bestmove line and the info lines before it.
    pub fn go(&mut self, args: &str) -> (String, Vec<String>) {
        self.send(&format!("go {args}"));
        self.expect_prefix("bestmove", Duration::from_secs(60))
    }

    /// Waits for the process to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line.
pub fn best_move(line: &str) -> &str {
    line.split_whitespace().nth(1).unwrap_or("")
}

/// The last `score ...` of the info lines, as ("cp"|"mate", value).
pub fn last_score(info: &[String]) -> (String, i32) {
    info.iter()
        .rev()
        .find_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "score")?;
            Some((words[at + 1].to_string(), words[at + 2].parse().ok()?))
        })
        .expect("an info line with a score")
}
