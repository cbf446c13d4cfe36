//! `--trace`: one JSON line per candidate considered, in order.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use crate::cache::sha3_hex;
use crate::events::{Action, Candidate};
use crate::outcome::Outcome;

/// Candidates up to this size are written in full.
pub const TRACE_CONTENT_LIMIT: usize = 4096;

#[derive(Serialize)]
struct Line<'a> {
    step: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    content_sha3: String,
    size: usize,
    action: Action,
    outcome: Outcome,
    candidate: String,
}

/// Writes the trace file.
pub struct TraceWriter {
    out: BufWriter<File>,
}

impl TraceWriter {
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        let file = File::create(path)
            .map_err(|e| anyhow::anyhow!("cannot create the trace {}: {e}", path.display()))?;
        Ok(TraceWriter {
            out: BufWriter::new(file),
        })
    }

    pub fn record(
        &mut self,
        step: u64,
        content: &[u8],
        action: Action,
        outcome: Outcome,
        candidate: &Candidate,
    ) -> std::io::Result<()> {
        let text = (content.len() <= TRACE_CONTENT_LIMIT)
            .then(|| std::str::from_utf8(content).ok())
            .flatten();
        let line = Line {
            step,
            content: text,
            content_sha3: sha3_hex(content),
            size: content.len(),
            action,
            outcome,
            candidate: candidate.describe(),
        };
        serde_json::to_writer(&mut self.out, &line)?;
        self.out.write_all(b"\n")
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
