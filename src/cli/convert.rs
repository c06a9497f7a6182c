//! `zwischen convert`: datagen records to text and back (a developer tool).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    input: String,
    output: String,
    #[arg(long)]
    to_text: bool,
}

pub fn run(args: Args) -> ExitCode {
    let Args { input, output, to_text } = args;
    match zwischen::tools::records::convert(&input, &output, to_text) {
        Ok(count) => {
            println!("{count} positions written to {output}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
