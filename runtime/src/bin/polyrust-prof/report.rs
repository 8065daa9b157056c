//! `polyrust-prof report PROFILE [--html OUT.html]`: what a profile with folded
//! accesses says about each hot loop nest (see `polyrust_rt::report`), as Markdown on
//! stdout, and optionally as a self-contained HTML page.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use polyrust_rt::report::{html, markdown};
use polyrust_rt::Profile;

pub const USAGE: &str = "\
usage: polyrust-prof report PROFILE [--html OUT.html]

For each hot loop nest of PROFILE (written by a program built with
-mllvm -polyrust-instrument=accesses), most accesses first: the share of accesses
whose addresses were affine, which loops carry (flow) dependences, which loops are
parallel, which bands of loops are permutable (so can be tiled), and a suggestion.
Markdown goes to stdout.

options:
  --html FILE   also write the report as a self-contained HTML page with pictures
  -h, --help    this text
";

pub fn run(args: &[OsString]) -> Result<()> {
    let mut profile_path: Option<PathBuf> = None;
    let mut html_path: Option<PathBuf> = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if text == "--html" {
            let Some(path) = args.next() else {
                bail!("--html needs a file name (polyrust-prof report --help)");
            };
            html_path = Some(PathBuf::from(path));
        } else if let Some(path) = text.strip_prefix("--html=") {
            html_path = Some(PathBuf::from(path));
        } else if text.starts_with('-') && text != "-" {
            bail!("report: unknown option '{text}' (polyrust-prof report --help)");
        } else if profile_path.is_some() {
            bail!("report takes one profile (polyrust-prof report --help)");
        } else {
            profile_path = Some(PathBuf::from(arg));
        }
    }
    let Some(profile_path) = profile_path else {
        bail!("report: no profile given (polyrust-prof report --help)");
    };
    let profile = Profile::read(&profile_path)?;
    let name = profile_path.display().to_string();
    if let Some(html_path) = &html_path {
        std::fs::write(html_path, html::render(&profile, &name))
            .with_context(|| format!("cannot write the HTML report '{}'", html_path.display()))?;
    }
    let text = markdown::render(&profile, &name);
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        // `polyrust-prof report p | head` is not an error.
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        result => Ok(result?),
    }
}
