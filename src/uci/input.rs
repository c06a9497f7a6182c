//! Reading stdin on its own thread, one bounded line at a time.

use std::io::{self, BufRead};
use std::sync::mpsc::Sender;

/// Lines longer than this are dropped (with an error) rather than buffered without end.
const MAX_LINE_BYTES: usize = 4 << 20;

/// Starts the reader thread: each line becomes `line_event(Ok(text))`, or `Err(problem)` for
/// a line that is too long or not UTF-8; the end of input becomes `end_event()`.
pub fn spawn_reader<E: Send + 'static>(
    sender: Sender<E>,
    line_event: impl Fn(Result<String, String>) -> E + Send + 'static,
    end_event: impl Fn() -> E + Send + 'static,
) {
    let spawned = std::thread::Builder::new().name("stdin".into()).spawn(move || {
        let stdin = io::stdin();
        let mut reader = stdin.lock();
        let mut buffer = Vec::new();
        loop {
            match read_line(&mut reader, &mut buffer) {
                Ok(None) | Err(_) => break,
                Ok(Some(line)) => {
                    if sender.send(line_event(line)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = sender.send(end_event());
    });
    if spawned.is_err() {
        eprintln!("error: cannot start the input thread");
    }
}

/// Reads one line (without its line ending). `Ok(None)` at the end of input.
pub fn read_line(
    reader: &mut impl BufRead,
    buffer: &mut Vec<u8>,
) -> io::Result<Option<Result<String, String>>> {
    buffer.clear();
    let mut total = 0usize;
    let mut saw_newline = false;
    while !saw_newline {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            break;
        }
        let (chunk, used) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => {
                saw_newline = true;
                (&available[..at], at + 1)
            }
            None => (available, available.len()),
        };
        if buffer.len() + chunk.len() <= MAX_LINE_BYTES {
            buffer.extend_from_slice(chunk);
        }
        total += chunk.len();
        reader.consume(used);
    }
    if !saw_newline && total == 0 {
        return Ok(None);
    }
    if total > MAX_LINE_BYTES {
        return Ok(Some(Err(format!("input line of {total} bytes is too long; ignored"))));
    }
    if buffer.last() == Some(&b'\r') {
        buffer.pop();
    }
    Ok(Some(match std::str::from_utf8(buffer) {
        Ok(text) => Ok(text.to_string()),
        Err(_) => Err("input line is not valid UTF-8; ignored".to_string()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_bounds_lines() {
        let mut input: Vec<u8> = b"uci\r\nisready\n\xff\xfe\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        input.extend_from_slice(b"\nlast");
        let mut reader = io::BufReader::with_capacity(1024, &input[..]);
        let mut buffer = Vec::new();
        let mut lines = Vec::new();
        while let Some(line) = read_line(&mut reader, &mut buffer).unwrap() {
            lines.push(line);
        }
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], Ok("uci".to_string()));
        assert_eq!(lines[1], Ok("isready".to_string()));
        assert!(lines[2].is_err());
        assert!(lines[3].is_err());
        assert_eq!(lines[4], Ok("last".to_string()));
    }
}
