//! `polyrust-prof trace FILE`: models the address trace of one memory reference as
//! the loop nests that regenerate it (`polyrust_rt::trace`), and prints them as C-like
//! loops, or with `--emit-c` as a C program that prints the trace back. With
//! `--expand`, FILE is a compressed trace the runtime wrote (`trace/expand.rs`).

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use polyrust_rt::trace::{self, render, Limits, Model, Piece, MAX_DEPTH};

mod expand;

pub const USAGE: &str = "\
usage: polyrust-prof trace [--binary] [--emit-c] [--max-depth N] [--max-faces N] [--stats] FILE
       polyrust-prof trace --expand [--site N] [--stats] [--emit-c] FILE

Models FILE, the addresses one memory reference issued in order, as loop nests that
regenerate it exactly (least depth first; a loop runs from the max to the min of
affine functions of the outer counters; one affine access per nest). Where one nest cannot explain the
whole stream, it is cut into consecutive pieces, each a nest or, where no nest is
worth it, the addresses themselves. Prints the nests as C-like loops and a summary:
accesses, pieces, model size in bytes.

input:
  text (default)  one address per line, decimal (may be negative) or 0x hexadecimal;
                  blank lines are skipped
  --binary        little-endian 8-byte integers, nothing else (no header)

options:
  --emit-c        print instead a C program that prints the modelled trace, one
                  decimal address per line: for a decimal FILE,
                    polyrust-prof trace --emit-c FILE > m.c && cc m.c && ./a.out | cmp - FILE
                  checks the model
  --max-depth N   deepest nest tried, 1 to 8 (default 8)
  --max-faces N   most upper (and most lower) faces per loop, 1 to 8 (default 4;
                  1 is the paper's single-domain algorithm)
  --stats         print the time taken and the rate to standard error
  -h, --help      this text

compressed traces (--expand):
  A program instrumented with -mllvm -polyrust-instrument=accesses and run with
  POLYRUST_TRACE=DIR writes, for each loop nest and thread, a compressed trace
  DIR/PID-SEQ-NEST-tTHREAD.polytrace.json: per load and store site, the model of the
  addresses it issued. --expand reads one:
  --site N        print the addresses of site N (its index in the nest's descriptor,
                  as --stats lists them), one decimal address per line: the format
                  this command reads, so `--expand --site N FILE | cmp - raw.txt`
                  checks a model against a raw trace; may be left out when the nest
                  has one load or store site
  --stats         print per site: kind, name, source position, accesses, pieces
                  (nests, literal pieces and the addresses they hold), model bytes
                  against 8 bytes per address, and whether the trace was truncated
                  (POLYRUST_TRACE_MB); to standard error when addresses are printed
  --emit-c        print the C program that prints site N's addresses
";

struct Options {
    path: PathBuf,
    binary: bool,
    emit_c: bool,
    stats: bool,
    limits: Limits,
    expand: bool,
    site: Option<u32>,
}

fn small_number(
    flag: &str,
    value: Option<&OsString>,
    range: std::ops::RangeInclusive<usize>,
) -> Result<usize> {
    let Some(value) = value else {
        bail!("{flag} needs a number (polyrust-prof trace --help)");
    };
    let text = value.to_string_lossy();
    match text.parse::<usize>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => bail!(
            "{flag} takes a number from {} to {}, not '{text}'",
            range.start(),
            range.end()
        ),
    }
}

fn parse_options(args: &[OsString]) -> Result<Options> {
    let mut path = None;
    let mut options = Options {
        path: PathBuf::new(),
        binary: false,
        emit_c: false,
        stats: false,
        limits: Limits::default(),
        expand: false,
        site: None,
    };
    let mut modelling_option = None;
    let mut args = args.iter();
    let mut options_ended = false;
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if options_ended || !text.starts_with('-') || text == "-" {
            if path.is_some() {
                bail!("trace takes one trace file (polyrust-prof trace --help)");
            }
            path = Some(PathBuf::from(arg));
            continue;
        }
        match text.as_ref() {
            "--" => options_ended = true,
            "--binary" => {
                options.binary = true;
                modelling_option = Some("--binary");
            }
            "--emit-c" => options.emit_c = true,
            "--stats" => options.stats = true,
            "--expand" => options.expand = true,
            "--site" => {
                let site = small_number("--site", args.next(), 0..=u32::MAX as usize)?;
                options.site = Some(site as u32);
            }
            "--max-depth" => {
                options.limits.max_depth = small_number("--max-depth", args.next(), 1..=MAX_DEPTH)?;
                modelling_option = Some("--max-depth");
            }
            "--max-faces" => {
                options.limits.max_faces = small_number("--max-faces", args.next(), 1..=8)?;
                modelling_option = Some("--max-faces");
            }
            _ => bail!("trace: unknown option '{text}' (polyrust-prof trace --help)"),
        }
    }
    let Some(path) = path else {
        bail!("trace: no trace file given (polyrust-prof trace --help)");
    };
    if options.expand {
        if let Some(option) = modelling_option {
            bail!("trace: {option} is for modelling a raw trace, not for --expand");
        }
    } else if options.site.is_some() {
        bail!("trace: --site selects a site of a compressed trace; add --expand");
    }
    options.path = path;
    Ok(options)
}

/// One address: decimal with an optional '-', or 0x hexadecimal (its 64 bits).
fn parse_address(text: &[u8]) -> Option<i64> {
    if let Some(hex) = text
        .strip_prefix(b"0x")
        .or_else(|| text.strip_prefix(b"0X"))
    {
        if hex.is_empty() || hex.len() > 16 {
            return None;
        }
        let mut value = 0u64;
        for &b in hex {
            value = value << 4 | (b as char).to_digit(16)? as u64;
        }
        return Some(value as i64);
    }
    let (negative, digits) = match text.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    // Accumulate negatively so that i64::MIN parses.
    let mut value = 0i64;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value.checked_mul(10)?.checked_sub((b - b'0') as i64)?;
    }
    if negative {
        Some(value)
    } else {
        value.checked_neg()
    }
}

/// A line of at most 18 decimal digits and nothing else: the common case, read with
/// no overflow check (18 digits stay below 2^63) and no trimming.
#[inline]
fn plain_decimal(line: &[u8]) -> Option<i64> {
    if line.is_empty() || line.len() > 18 {
        return None;
    }
    let mut value = 0u64;
    for &b in line {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value * 10 + digit as u64;
    }
    Some(value as i64)
}

fn read_text(bytes: &[u8], path: &Path) -> Result<Vec<i64>> {
    let mut addresses = Vec::with_capacity(bytes.len() / 8);
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        if let Some(address) = plain_decimal(raw) {
            addresses.push(address);
            continue;
        }
        let line = raw.trim_ascii();
        if line.is_empty() {
            continue;
        }
        let Some(address) = parse_address(line) else {
            bail!(
                "{}:{}: '{}' is not an address (one decimal or 0x hexadecimal number per \
                 line; use --binary for 8-byte binary traces)",
                path.display(),
                index + 1,
                String::from_utf8_lossy(&line[..line.len().min(40)])
            );
        };
        addresses.push(address);
    }
    Ok(addresses)
}

fn read_binary(bytes: &[u8], path: &Path) -> Result<Vec<i64>> {
    if !bytes.chunks_exact(8).remainder().is_empty() {
        bail!(
            "{}: {} bytes is not a whole number of 8-byte addresses (--binary reads \
             little-endian 64-bit integers)",
            path.display(),
            bytes.len()
        );
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            i64::from_le_bytes(word)
        })
        .collect())
}

pub(crate) fn summary(model: &Model) -> String {
    let nests = model.nests().count();
    let literals = model.pieces.len() - nests;
    let depth = model.nests().map(|n| n.depth()).max().unwrap_or(0);
    let literal_accesses: u64 = model
        .pieces
        .iter()
        .filter(|p| matches!(p, Piece::Literal(_)))
        .map(Piece::len)
        .sum();
    let mut text = format!(
        "{} accesses, {} pieces ({} nests, {} literal with {} accesses), deepest nest {}, model {} bytes",
        model.len(),
        model.pieces.len(),
        nests,
        literals,
        literal_accesses,
        depth,
        model.encoded_len()
    );
    if model.budget_hit {
        text.push_str(
            " (search budget reached in places: a shallower nest or fewer pieces may exist)",
        );
    }
    text
}

pub fn run(args: &[OsString]) -> Result<()> {
    let options = parse_options(args)?;
    if options.expand {
        return expand::run(&options.path, options.site, options.stats, options.emit_c);
    }
    let path = &options.path;
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read trace {}", path.display()))?;
    let started = Instant::now();
    let addresses = if options.binary {
        read_binary(&bytes, path)?
    } else {
        read_text(&bytes, path)?
    };
    drop(bytes);
    let read = started.elapsed();
    if addresses.is_empty() {
        bail!(
            "{}: no addresses; there is nothing to model",
            path.display()
        );
    }
    let model = trace::synthesize(&addresses, &options.limits)
        .with_context(|| format!("cannot model {}", path.display()))?;
    let total = started.elapsed();
    if options.stats {
        let rate = |seconds: f64| addresses.len() as f64 / seconds.max(1e-9) / 1e6;
        let modelling = (total - read).as_secs_f64();
        eprintln!(
            "polyrust-prof trace: read {} addresses in {:.3} s, modelled in {:.3} s \
             ({:.1} M accesses/s; {:.1} M/s with reading)",
            addresses.len(),
            read.as_secs_f64(),
            modelling,
            rate(modelling),
            rate(total.as_secs_f64())
        );
    }
    let text = if options.emit_c {
        render::c_program(&model)
    } else {
        format!("{}{}\n", render::readable(&model), summary(&model))
    };
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        result => Ok(result?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_in_decimal_and_hexadecimal() {
        assert_eq!(parse_address(b"42"), Some(42));
        assert_eq!(parse_address(b"-8"), Some(-8));
        assert_eq!(parse_address(b"0x1e2d140"), Some(0x1e2d140));
        assert_eq!(parse_address(b"0xffffffffffffffff"), Some(-1));
        assert_eq!(parse_address(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_address(b"9223372036854775808"), None);
        assert_eq!(parse_address(b"0x"), None);
        assert_eq!(parse_address(b"12a"), None);
        assert_eq!(parse_address(b"-"), None);
        assert_eq!(
            plain_decimal(b"123456789012345678"),
            Some(123456789012345678)
        );
        assert_eq!(plain_decimal(b"1234567890123456789"), None);
        assert_eq!(plain_decimal(b"12 "), None);
    }

    #[test]
    fn text_traces_mix_decimal_hexadecimal_and_blank_lines() {
        let read = read_text(b"8\r\n 0x10 \n\n-8\n99999999999999999999\n", Path::new("t"));
        assert!(read.is_err());
        let read = read_text(
            b"8\r\n 0x10 \n\n-8\n123456789012345678901\n",
            Path::new("t"),
        );
        assert!(read.is_err());
        let read = read_text(b"8\r\n 0x10 \n\n-8\n9223372036854775807", Path::new("t"));
        assert_eq!(read.unwrap(), vec![8, 16, -8, i64::MAX]);
    }

    #[test]
    fn a_malformed_line_is_named() {
        let error = read_text(b"8\n16\n\nsix\n", Path::new("t.txt")).unwrap_err();
        assert!(error.to_string().starts_with("t.txt:4: 'six'"), "{error}");
    }

    #[test]
    fn binary_input_must_be_whole_words() {
        assert_eq!(
            read_binary(&[1, 0, 0, 0, 0, 0, 0, 0], Path::new("b")).unwrap(),
            vec![1]
        );
        assert!(read_binary(&[1, 2, 3], Path::new("b")).is_err());
    }
}
