//! `zwischen fit-wdl`: the UCI_ShowWDL model fitted to datagen data, and the logistic scale
//! under which the data's scores best predict its results (the trainer's `--score-scale`).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A record file written by datagen (repeat for several).
    #[arg(long, required = true)]
    data: Vec<String>,
}

pub fn run(args: Args) -> ExitCode {
    let Args { data } = args;
    run_fit_wdl(&data)
}

fn run_fit_wdl(paths: &[String]) -> ExitCode {
    let mut samples = Vec::new();
    for path in paths {
        match zwischen::tools::wdl_fit::load_records(std::path::Path::new(path), &mut samples) {
            Ok(0) => {}
            Ok(skipped) => eprintln!("{path}: {skipped} records could not be read, skipped"),
            Err(error) => {
                eprintln!("error: cannot read {path}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let fit = zwischen::tools::wdl_fit::fit(&samples);
    println!(
        "{} positions, A = {:.1}, B = {:.1}, mean log-likelihood {:.5}",
        fit.samples, fit.a, fit.b, fit.mean_log_likelihood
    );
    // The trainer's logistic (`--score-scale`) that best turns these scores into results.
    let scale = zwischen::tools::wdl_fit::fit_score_scale(&samples);
    println!(
        "score scale {scale:.1} (squared error {:.5}; at the trainer's default 400: {:.5})",
        zwischen::tools::wdl_fit::score_scale_error(&samples, scale),
        zwischen::tools::wdl_fit::score_scale_error(&samples, 400.0)
    );
    ExitCode::SUCCESS
}
