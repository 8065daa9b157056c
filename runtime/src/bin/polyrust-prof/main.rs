//! polyrust-prof: the command-line tool for polyrust profiles, shaped like
//! `llvm-profdata`, and for address traces (`trace`). Each command is one file; a new command is one more entry in
//! [`COMMANDS`].

mod merge;
mod report;
mod show;
mod trace;

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::{bail, Result};

/// One command: its name, a line for the overview, its full usage, and what runs it.
struct Command {
    name: &'static str,
    summary: &'static str,
    usage: &'static str,
    run: fn(&[OsString]) -> Result<()>,
}

const COMMANDS: &[Command] = &[
    Command {
        name: "merge",
        summary: "add up profiles of several runs into one",
        usage: merge::USAGE,
        run: merge::run,
    },
    Command {
        name: "report",
        summary: "what the folded accesses say: affine, parallel, permutable loops",
        usage: report::USAGE,
        run: report::run,
    },
    Command {
        name: "show",
        summary: "print what a profile says, region by region",
        usage: show::USAGE,
        run: show::run,
    },
    Command {
        name: "trace",
        summary: "model an address trace as loop nests; expand a compressed trace (--expand)",
        usage: trace::USAGE,
        run: trace::run,
    },
];

fn overview() -> String {
    let mut text = String::from(
        "polyrust-prof: reads, shows and merges the profiles written by programs compiled\n\
         with -mllvm -polyrust-profile-generate (and linked with -lpolyrust_rt), and models\n\
         address traces as loop nests (and expands the compressed traces programs write\n\
         with POLYRUST_TRACE=DIR).\n\n\
         usage: polyrust-prof COMMAND [ARGS]\n\ncommands:\n",
    );
    for command in COMMANDS {
        text.push_str(&format!("  {:<8}{}\n", command.name, command.summary));
    }
    text.push_str("\n'polyrust-prof COMMAND --help' shows the usage of one command.\n");
    text
}

/// Whether `args` asks for help (`-h` or `--help` anywhere before `--`).
fn wants_help(args: &[OsString]) -> bool {
    args.iter()
        .take_while(|arg| *arg != "--")
        .any(|arg| arg == "-h" || arg == "--help")
}

fn run(args: &[OsString]) -> Result<()> {
    let Some(name) = args.first() else {
        eprint!("{}", overview());
        bail!("no command given");
    };
    if name == "-h" || name == "--help" || name == "help" {
        print!("{}", overview());
        return Ok(());
    }
    let Some(command) = COMMANDS.iter().find(|command| name == command.name) else {
        let names: Vec<&str> = COMMANDS.iter().map(|command| command.name).collect();
        bail!(
            "unknown command '{}'; the commands are {} (polyrust-prof --help)",
            name.to_string_lossy(),
            names.join(", ")
        );
    };
    if wants_help(&args[1..]) {
        print!("{}", command.usage);
        return Ok(());
    }
    (command.run)(&args[1..])
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("polyrust-prof: error: {error:#}");
            ExitCode::from(1)
        }
    }
}
