//! `polyrust-prof merge -o OUT IN...`: adds up the profiles of several runs, as
//! `llvm-profdata merge` does. Regions whose source changed between the runs (another
//! module hash) are taken from the input given last, with a warning; nests of folded
//! accesses are kept side by side.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{bail, Result};
use polyrust_rt::Profile;

pub const USAGE: &str = "\
usage: polyrust-prof merge -o OUTPUT INPUT...

Adds up the profiles INPUT... (entries, value and tuple counts, overlaps) into OUTPUT.
A region whose source changed between the runs (another module hash) is taken from
the input given last, with a warning. Nests of folded accesses (format 2) cannot be
added up (each run numbers its entries from 0): they are kept side by side, so that
`report` shows every run's. OUTPUT may be one of the inputs.

options:
  -o, --output FILE   where to write the merged profile (required)
  -h, --help          this text
";

pub fn run(args: &[OsString]) -> Result<()> {
    let mut output: Option<PathBuf> = None;
    let mut inputs: Vec<PathBuf> = Vec::new();
    let mut args = args.iter();
    let mut options_ended = false;
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if options_ended || !text.starts_with('-') || text == "-" {
            inputs.push(PathBuf::from(arg));
        } else if text == "--" {
            options_ended = true;
        } else if text == "-o" || text == "--output" {
            let Some(path) = args.next() else {
                bail!("{text} needs a file name (polyrust-prof merge --help)");
            };
            output = Some(PathBuf::from(path));
        } else if let Some(path) = text.strip_prefix("--output=") {
            output = Some(PathBuf::from(path));
        } else if let Some(path) = text.strip_prefix("-o").filter(|path| !path.is_empty()) {
            output = Some(PathBuf::from(path));
        } else {
            bail!("merge: unknown option '{text}' (polyrust-prof merge --help)");
        }
    }
    let Some(output) = output else {
        bail!("merge: no output file; give one with -o FILE (polyrust-prof merge --help)");
    };
    if inputs.is_empty() {
        bail!("merge: no input profiles (polyrust-prof merge --help)");
    }
    let mut profiles = Vec::with_capacity(inputs.len());
    for input in &inputs {
        profiles.push((input.display().to_string(), Profile::read(input)?));
    }
    let merged = Profile::merge_labeled(profiles)?;
    for warning in &merged.warnings {
        eprintln!("polyrust-prof: warning: {warning}");
    }
    merged.profile.write(&output)?;
    Ok(())
}
