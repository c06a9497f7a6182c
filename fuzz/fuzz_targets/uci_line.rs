//! Arbitrary bytes as UCI input (non-UTF-8, huge lines, anything): the line reader and the
//! command parser never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut reader = std::io::BufReader::with_capacity(64, data);
    let mut buffer = Vec::new();
    while let Ok(Some(line)) = zwischen::uci::read_line(&mut reader, &mut buffer) {
        if let Ok(line) = line {
            let mut warnings = Vec::new();
            let _ = zwischen::uci::parse(&line, &mut warnings);
        }
    }
});
