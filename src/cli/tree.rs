//! The `whittle tree` and `whittle languages` commands.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use crate::console::{StdoutError, outln};
use unicode_width::UnicodeWidthStr;
use whittle_core::tree::{Language, NodeId, Preprocess, Tree, check, languages};

/// Shows a text in one line, escaped and shortened.
fn snippet(text: &[u8], limit: usize) -> String {
    let text = String::from_utf8_lossy(text);
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count >= limit {
            out.push('…');
            break;
        }
        out.extend(c.escape_debug());
    }
    out
}

/// Deeper nodes are not indented further; their line starts with their depth instead.
const MAX_INDENT_DEPTH: usize = 100;

/// One line of the tree listing (two spaces of indentation per level, up to
/// [`MAX_INDENT_DEPTH`] levels), written into `line`.
fn describe(tree: &Tree, id: NodeId, line: &mut String) {
    line.clear();
    let depth = tree.depth(id);
    for _ in 0..depth.min(MAX_INDENT_DEPTH) {
        line.push_str("  ");
    }
    if depth > MAX_INDENT_DEPTH {
        let _ = write!(line, "[depth {depth}] ");
    }
    if tree.is_named(id) {
        line.push_str(tree.kind(id));
    } else {
        let _ = write!(line, "\"{}\"", snippet(tree.kind(id).as_bytes(), 40));
    }
    let range = tree.byte_range(id);
    let _ = write!(line, " {}..{}", range.start, range.end);
    if tree.is_token(id) && tree.is_named(id) {
        let _ = write!(line, " \"{}\"", snippet(tree.text(id), 40));
    }
    match tree.replacement(id) {
        Some(text) => {
            let _ = write!(line, " Φ=\"{}\"", snippet(text, 40));
        }
        None => line.push_str(" Φ=?"),
    }
    line.push_str(if tree.is_removable(id) {
        " removable"
    } else {
        " unremovable"
    });
    if tree.is_phi_empty(id) {
        line.push_str(" Φ-empty");
    }
    if tree.is_list_separator(id) {
        line.push_str(" separator");
    }
    let supertypes = tree.supertypes(id);
    if !supertypes.is_empty() {
        let _ = write!(line, " <{}>", supertypes.join(","));
    }
    line.push('\n');
}

/// The listing could not be written: the command line ends quietly on a closed pipe
/// (`whittle tree ... | head`) and reports anything else.
fn ended_output(error: std::io::Error) -> anyhow::Result<i32> {
    Err(StdoutError::new(error).into())
}

/// Entry point of `whittle tree FILE`: lists the parse tree of `file` (in `language`, or the
/// one its extension names) and, with `phi_check`, how many nodes' Φ parse in place.
pub fn tree_command(file: &Path, language: Option<&str>, phi_check: bool) -> anyhow::Result<i32> {
    let tree = whittle_core::tree::parse_file(file, language, Preprocess::default())?;
    // One line at a time: the listing of a deep tree is far larger than the tree.
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut line = String::new();
    for id in tree.ids() {
        describe(&tree, id, &mut line);
        if let Err(error) = out.write_all(line.as_bytes()) {
            return ended_output(error);
        }
    }
    let removable = tree.ids().filter(|&id| tree.is_removable(id)).count();
    let phi_empty = tree.ids().filter(|&id| tree.is_phi_empty(id)).count();
    let summary = writeln!(
        out,
        "language: {}, nodes: {}, removable: {}, Φ-empty: {}, syntax errors in the input: {}",
        tree.language().name(),
        tree.len(),
        removable,
        phi_empty,
        tree.input_errors()
    )
    .and_then(|()| out.flush());
    if let Err(error) = summary {
        return ended_output(error);
    }
    drop(out);
    if phi_check {
        let report = check::phi_check(&tree)?;
        for &id in &report.invalid {
            let range = tree.byte_range(id);
            outln!(
                "phi-invalid: {} {}..{} Φ=\"{}\"",
                tree.kind(id),
                range.start,
                range.end,
                snippet(tree.phi(id).unwrap_or(b""), 40)
            )?;
        }
        outln!("phi-valid: {}/{}", report.valid, report.tried)?;
    }
    Ok(0)
}

/// Entry point of `whittle languages`.
pub fn languages_command() -> anyhow::Result<i32> {
    let extensions = |language: &Language| {
        let dotted: Vec<String> = language
            .extensions()
            .iter()
            .map(|e| format!(".{e}"))
            .collect();
        dotted.join(" ")
    };
    // Each column as wide as its longest entry.
    let width = |column: &dyn Fn(&Language) -> String, heading: &str| {
        languages()
            .iter()
            .map(|language| column(language).width())
            .fold(heading.width(), usize::max)
    };
    let names = width(&|language| language.name().to_owned(), "name");
    let titles = width(&|language| language.title().to_owned(), "title");
    let dotted = width(&extensions, "extensions");
    let features = width(&|language| language.feature().to_owned(), "feature");
    outln!(
        "{:<names$} {:<titles$} {:<dotted$} {:<features$} available",
        "name",
        "title",
        "extensions",
        "feature"
    )?;
    for language in languages() {
        outln!(
            "{:<names$} {:<titles$} {:<dotted$} {:<features$} {}",
            language.name(),
            language.title(),
            extensions(language),
            language.feature(),
            if language.is_available() {
                "yes"
            } else {
                "no (not compiled in)"
            }
        )?;
    }
    Ok(0)
}
