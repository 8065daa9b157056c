//! `polyrust-prof trace --expand FILE`: reads a compressed trace the runtime wrote
//! (`POLYRUST_TRACE=DIR`, `polyrust_rt::trace::file`) and prints one site's
//! addresses, one decimal address per line (what `polyrust-prof trace` reads), its C
//! program, or a per-site summary of the models. The file is checked whole before
//! anything is printed.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use polyrust_rt::trace::file::{CompressedTrace, SiteTrace};
use polyrust_rt::trace::{render, Model, Piece};

/// What the models of one site hold.
struct SiteFigures {
    nests: usize,
    literals: usize,
    literal_addresses: u64,
    model_bytes: usize,
}

fn figures(model: &Model) -> SiteFigures {
    let literal_addresses = model
        .pieces
        .iter()
        .filter(|p| matches!(p, Piece::Literal(_)))
        .map(Piece::len)
        .sum();
    let nests = model.nests().count();
    SiteFigures {
        nests,
        literals: model.pieces.len() - nests,
        literal_addresses,
        model_bytes: model.encoded_len(),
    }
}

fn ratio(raw: u64, model: usize) -> String {
    if model == 0 {
        "-".into()
    } else {
        format!("{:.1}", raw as f64 / model as f64)
    }
}

/// The per-site table, a line per site and a total.
fn stats(trace: &CompressedTrace, path: &Path, file_bytes: u64) -> Result<String> {
    let mut text = format!(
        "{}: nest {} ({} in {}:{}{}), thread {}, {} entries, chunks of {} addresses\n",
        path.display(),
        trace.nest,
        trace.function,
        trace.file,
        trace.line,
        if trace.modelled { ", modelled" } else { "" },
        trace.thread,
        trace.entries,
        trace.chunk
    );
    text.push_str(
        "site  kind   name          line:col   accesses  pieces  nests  literal (addresses)  model B     raw B  raw/model\n",
    );
    let (mut accesses, mut model_bytes) = (0u64, 0usize);
    for site in &trace.sites {
        let model = site
            .model()
            .map_err(|problem| anyhow::anyhow!("site {}: {problem}", site.site))?;
        let f = figures(&model);
        let raw = 8 * site.accesses;
        accesses += site.accesses;
        model_bytes += f.model_bytes;
        let mut notes = String::new();
        if site.truncated {
            notes.push_str(&format!(
                "  truncated: {} more not recorded (POLYRUST_TRACE_MB)",
                site.dropped
            ));
        }
        if site.search_budget_hit {
            notes.push_str("  search budget reached");
        }
        let kind = format!("{:?}", site.kind).to_lowercase();
        text.push_str(&format!(
            "{:>4}  {:<5}  {:<12}  {:>4}:{:<4} {:>9}  {:>6}  {:>5}  {:>7} ({:>9})  {:>7}  {:>8}  {:>9}{notes}\n",
            site.site,
            kind,
            if site.name.is_empty() { "-" } else { &site.name },
            site.line,
            site.column,
            site.accesses,
            model.pieces.len(),
            f.nests,
            f.literals,
            f.literal_addresses,
            f.model_bytes,
            raw,
            ratio(raw, f.model_bytes)
        ));
    }
    text.push_str(&format!(
        "total: {} sites, {} accesses, model {} bytes, raw {} bytes ({}x), file {} bytes ({}x)\n",
        trace.sites.len(),
        accesses,
        model_bytes,
        8 * accesses,
        ratio(8 * accesses, model_bytes),
        file_bytes,
        ratio(8 * accesses, file_bytes as usize)
    ));
    Ok(text)
}

fn chosen_site<'a>(
    trace: &'a CompressedTrace,
    site: Option<u32>,
    path: &Path,
) -> Result<&'a SiteTrace> {
    let listing = || {
        trace
            .sites
            .iter()
            .map(|s| {
                format!("{} ({:?} {} at line {})", s.site, s.kind, s.name, s.line).to_lowercase()
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match site {
        Some(index) => match trace.site(index) {
            Some(found) => Ok(found),
            None => bail!(
                "{}: no load or store site {index}; its sites are {}",
                path.display(),
                listing()
            ),
        },
        None if trace.sites.len() == 1 => Ok(&trace.sites[0]),
        None => bail!(
            "{}: the nest has {} load and store sites; choose one with --site N \
             ({}), or see them all with --stats",
            path.display(),
            trace.sites.len(),
            listing()
        ),
    }
}

/// Prints `model`'s addresses, checking that it emits as many as the site recorded.
fn print_addresses(model: &Model, expected: u64, out: &mut impl Write) -> Result<()> {
    let mut printed = 0u64;
    let mut buffer = itoa_buffer();
    for address in model.generate() {
        out.write_all(format_address(&mut buffer, address))?;
        printed += 1;
    }
    if printed != expected {
        bail!(
            "the model emits {printed} addresses, not the {expected} it says: the file is damaged"
        );
    }
    Ok(())
}

fn itoa_buffer() -> [u8; 24] {
    [0; 24]
}

/// `address` in decimal and a newline, written into `buffer` (faster than `write!`,
/// which matters for traces of 10^8 addresses).
fn format_address(buffer: &mut [u8; 24], address: i64) -> &[u8] {
    let mut at = buffer.len() - 1;
    buffer[at] = b'\n';
    let mut value = address.unsigned_abs();
    loop {
        at -= 1;
        buffer[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    if address < 0 {
        at -= 1;
        buffer[at] = b'-';
    }
    &buffer[at..]
}

pub fn run(path: &Path, site: Option<u32>, show_stats: bool, emit_c: bool) -> Result<()> {
    let trace = CompressedTrace::read(path)?;
    let file_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = (|| -> Result<()> {
        if show_stats && site.is_none() && !emit_c {
            out.write_all(stats(&trace, path, file_bytes)?.as_bytes())?;
            return Ok(());
        }
        let chosen = chosen_site(&trace, site, path)?;
        // `read` checked every site's model already.
        let model = chosen.model().map_err(|problem| {
            anyhow::anyhow!("{}: site {}: {problem}", path.display(), chosen.site)
        })?;
        if show_stats {
            eprint!("{}", stats(&trace, path, file_bytes)?);
        }
        if emit_c {
            out.write_all(render::c_program(&model).as_bytes())?;
        } else {
            print_addresses(&model, chosen.accesses, &mut out)
                .with_context(|| format!("{}: site {}", path.display(), chosen.site))?;
        }
        Ok(())
    })();
    let flushed = out.flush();
    match result.and(flushed.map_err(Into::into)) {
        Err(error)
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_print_in_decimal() {
        let mut buffer = itoa_buffer();
        for value in [0, 7, -8, 1234567890123, i64::MIN, i64::MAX] {
            assert_eq!(
                format_address(&mut buffer, value),
                format!("{value}\n").as_bytes()
            );
        }
    }
}
