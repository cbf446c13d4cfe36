//! `--trace`: one JSON line per candidate considered, in order, and what `whittle replay`
//! needs to show the run again.
//!
//! Every candidate line has `step`, `content` (up to [`TRACE_CONTENT_LIMIT`] bytes of UTF-8),
//! `content_sha3`, `size`, `action`, `outcome` and `candidate` (as the papers write it), and
//! since version 2 also `kind`, `index` and `n` (the candidate), `removed` (the byte ranges of
//! the current best it removes or replaces, when known), `t` (seconds since the run started)
//! and `duration` (of the test, all its runs), and `timeout_reruns` when the test ran again
//! after a timeout (each run one more test). A trace written for a run ([`TraceWriter::for_run`]) is
//! *replayable*: its first line is a [`TraceHeader`] with the input and the settings, each
//! candidate line carries in `events` what the engine reported since the previous candidate
//! (rounds, stages, reductions with the new best as a delta, the end of each test's output up
//! to [`TRACE_CONTENT_LIMIT`] bytes, ...), and a last line
//! (`"end": true`) carries the events after the last candidate and the result's hash. Lines
//! without `step` are the header and that end line. A trace of an interrupted run simply lacks
//! the end line.

use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::exec::cache::sha3_hex;
use crate::observe::events::{Action, Candidate, Event};
use crate::outcome::Outcome;
pub use crate::text::delta::Delta;

/// Candidates up to this size are written in full.
pub const TRACE_CONTENT_LIMIT: usize = 4096;

/// The version of the trace format written.
pub const TRACE_VERSION: u32 = 2;

/// Bytes in JSON: a string when they are UTF-8, else hexadecimal digits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
}

impl Text {
    pub fn of(bytes: &[u8]) -> Text {
        match std::str::from_utf8(bytes) {
            Ok(text) => Text {
                text: Some(text.to_owned()),
                hex: None,
            },
            Err(_) => Text {
                text: None,
                hex: Some(bytes.iter().map(|b| format!("{b:02x}")).collect()),
            },
        }
    }

    pub fn bytes(&self) -> anyhow::Result<Vec<u8>> {
        if let Some(text) = &self.text {
            return Ok(text.as_bytes().to_vec());
        }
        let hex = self.hex.as_deref().unwrap_or("");
        if !hex.len().is_multiple_of(2) {
            anyhow::bail!("odd number of hexadecimal digits");
        }
        (0..hex.len())
            .step_by(2)
            .map(|i| {
                u8::from_str_radix(&hex[i..i + 2], 16)
                    .map_err(|_| anyhow::anyhow!("bad hexadecimal digits `{}`", &hex[i..i + 2]))
            })
            .collect()
    }
}

/// The first line of a replayable trace: what was reduced, how, and with which test.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TraceHeader {
    /// The format version ([`TRACE_VERSION`]).
    pub whittle_trace: u32,
    /// How the input is named on screen (its file name).
    pub input_name: String,
    pub input: Text,
    /// The hash of the input.
    pub content_sha3: String,
    pub pipeline: String,
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub jobs: usize,
    #[serde(default)]
    pub parallel: String,
    /// The split factor at the start (`2`, `inf`).
    #[serde(default)]
    pub split_factor: String,
    #[serde(default)]
    pub stage_count: usize,
    /// The test command as the user gave it.
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub output: Option<String>,
}

/// A [`Delta`] as a trace writes it: the new bytes as [`Text`].
#[derive(Serialize, Deserialize)]
struct DeltaJson {
    prefix: usize,
    suffix: usize,
    middle: Text,
}

/// Writes and reads a recorded event's delta in the form of [`DeltaJson`].
mod delta_json {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{Delta, DeltaJson, Text};

    pub fn serialize<S: Serializer>(
        delta: &Option<Delta>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        delta
            .as_ref()
            .map(|delta| DeltaJson {
                prefix: delta.prefix,
                suffix: delta.suffix,
                middle: Text::of(&delta.middle),
            })
            .serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Delta>, D::Error> {
        let Some(json) = Option::<DeltaJson>::deserialize(deserializer)? else {
            return Ok(None);
        };
        let middle = json.middle.bytes().map_err(serde::de::Error::custom)?;
        Ok(Some(Delta {
            prefix: json.prefix,
            suffix: json.suffix,
            middle,
        }))
    }
}

/// An engine event as a trace records it: reductions, restarts and undos carry the new best.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RecordedEvent {
    #[serde(flatten)]
    pub event: Event,
    /// The new best against the previous one (reductions, restarts, undos).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "delta_json")]
    pub delta: Option<Delta>,
}

#[derive(Serialize)]
struct CandidateLine<'a> {
    step: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    content_sha3: String,
    size: usize,
    action: Action,
    outcome: Outcome,
    candidate: String,
    kind: crate::observe::events::CandidateKind,
    index: u32,
    n: u32,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    removed: &'a [Range<usize>],
    t: f64,
    duration: f64,
    /// Runs more after a timeout (see `Verdict::timeout_reruns`), each one more test.
    #[serde(skip_serializing_if = "is_zero")]
    timeout_reruns: u32,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    events: &'a [RecordedEvent],
}

/// Whether a count is zero (left out of the line).
fn is_zero(count: &u32) -> bool {
    *count == 0
}

#[derive(Serialize)]
struct EndLine<'a> {
    end: bool,
    content_sha3: String,
    size: usize,
    t: f64,
    events: &'a [RecordedEvent],
}

/// One candidate as the trace recorded it.
#[derive(Clone, Debug, Deserialize)]
pub struct TracedCandidate {
    pub step: u64,
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub content_sha3: String,
    pub size: usize,
    pub action: Action,
    pub outcome: Outcome,
    #[serde(default)]
    pub candidate: String,
    pub kind: crate::observe::events::CandidateKind,
    #[serde(default)]
    pub index: u32,
    #[serde(default)]
    pub n: u32,
    #[serde(default)]
    pub removed: Vec<Range<usize>>,
    #[serde(default)]
    pub t: f64,
    #[serde(default)]
    pub duration: f64,
    /// The test ran this many times more after timing out (each one more test).
    #[serde(default)]
    pub timeout_reruns: u32,
    /// What happened since the previous candidate.
    #[serde(default)]
    pub events: Vec<RecordedEvent>,
}

impl TracedCandidate {
    pub fn candidate(&self) -> Candidate {
        Candidate {
            kind: self.kind,
            index: self.index,
            n: self.n,
        }
    }

    /// The event the engine sent when it judged this candidate.
    pub fn judged_event(&self) -> Event {
        Event::CandidateJudged {
            step: self.step,
            candidate: self.candidate(),
            size: self.size,
            preview: self
                .content
                .as_ref()
                .filter(|content| content.len() <= crate::observe::events::PREVIEW_LIMIT)
                .cloned(),
            removed: self.removed.clone(),
            action: self.action,
            outcome: self.outcome,
            status: None,
            duration: Duration::from_secs_f64(self.duration.max(0.0)),
            node: None,
            timeout_reruns: self.timeout_reruns,
        }
    }
}

#[derive(Deserialize)]
struct EndLineIn {
    #[serde(default)]
    t: f64,
    #[serde(default)]
    events: Vec<RecordedEvent>,
}

/// A replayable trace, read back.
#[derive(Clone, Debug)]
pub struct Trace {
    pub header: TraceHeader,
    pub candidates: Vec<TracedCandidate>,
    /// Events after the last candidate (the end line's), and when the run ended.
    pub end: Option<(f64, Vec<RecordedEvent>)>,
    /// The trace's last line was cut (the run was killed, or the disk was full, while it was
    /// written): its line number and how many bytes of it were there. The complete lines
    /// before it are read.
    pub cut: Option<CutLine>,
}

/// A last line that was not written whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutLine {
    /// Its line number (from 1).
    pub line: usize,
    /// The bytes of it in the file.
    pub bytes: usize,
}

impl Trace {
    /// Reads a trace written with a header (a run's `--trace`). A last line without its end
    /// (the run was killed while writing it) is left out and noted in [`Trace::cut`]; any
    /// other line that is not what a trace holds is an error.
    pub fn read(path: &Path) -> anyhow::Result<Trace> {
        let bytes = crate::output::read_regular_file(path, "the trace", u64::MAX)
            .map_err(anyhow::Error::msg)?;
        Trace::parse(&bytes, &path.display().to_string())
    }

    /// Reads a trace from its bytes; `name` names it in messages.
    pub fn parse(bytes: &[u8], name: &str) -> anyhow::Result<Trace> {
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        // After the last newline: nothing when the trace ends with a whole line; else a line
        // without its newline, cut unless it is whole JSON all the same.
        let mut cut = None;
        if let Some(tail) = lines.pop()
            && !tail.is_empty()
        {
            if serde_json::from_slice::<serde_json::Value>(tail).is_ok() {
                lines.push(tail);
            } else {
                cut = Some(CutLine {
                    line: lines.len() + 1,
                    bytes: tail.len(),
                });
            }
        }
        let mut lines = lines.into_iter().enumerate();
        let header: TraceHeader = match lines.next() {
            Some((_, line)) => serde_json::from_slice(line).map_err(|_| {
                anyhow::anyhow!(
                    "{name} is no replayable trace: its first line is not a whittle trace \
                     header (traces written by `whittle reduce --trace` since version {} \
                     have one)",
                    TRACE_VERSION
                )
            })?,
            None if cut.is_some() => anyhow::bail!(
                "the trace {name} holds no whole line: it was cut while its header was written"
            ),
            None => anyhow::bail!("the trace {name} is empty"),
        };
        if header.whittle_trace > TRACE_VERSION {
            anyhow::bail!(
                "the trace {name} has format version {}; this whittle reads up to {}",
                header.whittle_trace,
                TRACE_VERSION
            );
        }
        let mut candidates = Vec::new();
        let mut end = None;
        for (number, line) in lines {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let value: serde_json::Value = serde_json::from_slice(line)
                .map_err(|e| anyhow::anyhow!("{name}:{}: not JSON: {e}", number + 1))?;
            let parsed = if value.get("end").is_some() {
                serde_json::from_value::<EndLineIn>(value).map(|line| {
                    end = Some((line.t, line.events));
                })
            } else {
                serde_json::from_value::<TracedCandidate>(value)
                    .map(|candidate| candidates.push(candidate))
            };
            parsed.map_err(|e| anyhow::anyhow!("{name}:{}: {e}", number + 1))?;
        }
        Ok(Trace {
            header,
            candidates,
            end,
            cut,
        })
    }
}

/// Writes the trace file, a whole line per write (see the module's documentation).
pub struct TraceWriter {
    out: File,
    /// The line being made (kept to reuse its memory).
    line: Vec<u8>,
    /// Replayable: events are kept for the next line, the best is followed.
    replay: Option<ReplayState>,
}

struct ReplayState {
    /// Events since the last line written.
    pending: Vec<RecordedEvent>,
    /// The best as the trace knows it.
    best: Vec<u8>,
}

impl TraceWriter {
    /// A trace of candidate lines only.
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        let file = File::create(path)
            .map_err(|e| anyhow::anyhow!("cannot create the trace {}: {e}", path.display()))?;
        Ok(TraceWriter {
            out: file,
            line: Vec::new(),
            replay: None,
        })
    }

    /// A replayable trace of a run on `input`: the header first, then candidate lines with the
    /// events between them (see the module's documentation).
    pub fn for_run(path: &Path, mut header: TraceHeader, input: &[u8]) -> anyhow::Result<Self> {
        let mut writer = TraceWriter::create(path)?;
        header.whittle_trace = TRACE_VERSION;
        header.input = Text::of(input);
        header.content_sha3 = sha3_hex(input);
        writer.write_line(&header)?;
        writer.replay = Some(ReplayState {
            pending: Vec::new(),
            best: input.to_vec(),
        });
        Ok(writer)
    }

    /// Keeps an engine event for the next line (replayable traces only); `best` is the current
    /// best after it.
    pub fn note_event(&mut self, event: &Event, best: &[u8]) {
        let Some(replay) = &mut self.replay else {
            return;
        };
        let event = match event {
            // The end of a test's output is enough to show it again (and keeps traces small).
            Event::TestOutput {
                step,
                status,
                tail,
                node,
            } if tail.len() > TRACE_CONTENT_LIMIT => {
                let mut cut = tail.len() - TRACE_CONTENT_LIMIT;
                while !tail.is_char_boundary(cut) {
                    cut += 1;
                }
                Event::TestOutput {
                    step: *step,
                    status: status.clone(),
                    tail: tail[cut..].to_string(),
                    node: node.clone(),
                }
            }
            other => other.clone(),
        };
        let delta = match &event {
            Event::TestStarted { .. } | Event::CandidateJudged { .. } => return,
            Event::Accepted { .. } | Event::Restarted { .. } | Event::Undone { .. } => {
                let delta = Delta::between(&replay.best, best);
                replay.best = best.to_vec();
                Some(delta)
            }
            _ => None,
        };
        replay.pending.push(RecordedEvent { event, delta });
    }

    /// Writes a candidate line; `running` is the run's time so far without its pauses, `runs`
    /// the test's time and how many times it ran again after a timeout.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        running: Duration,
        step: u64,
        content: &[u8],
        action: Action,
        outcome: Outcome,
        candidate: &Candidate,
        removed: &[Range<usize>],
        runs: (Duration, u32),
    ) -> std::io::Result<()> {
        let (duration, timeout_reruns) = runs;
        let text = (content.len() <= TRACE_CONTENT_LIMIT)
            .then(|| std::str::from_utf8(content).ok())
            .flatten();
        let events = self
            .replay
            .as_mut()
            .map(|replay| std::mem::take(&mut replay.pending))
            .unwrap_or_default();
        let line = CandidateLine {
            step,
            content: text,
            content_sha3: sha3_hex(content),
            size: content.len(),
            action,
            outcome,
            candidate: candidate.describe(),
            kind: candidate.kind,
            index: candidate.index,
            n: candidate.n,
            removed,
            t: running.as_secs_f64(),
            duration: duration.as_secs_f64(),
            timeout_reruns,
            events: &events,
        };
        self.write_line(&line)
    }

    /// Writes `value` as one JSON line with a single write, so that a run killed meanwhile
    /// leaves whole lines and at most a cut last one.
    fn write_line(&mut self, value: &impl Serialize) -> std::io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, value)?;
        self.line.push(b'\n');
        self.out.write_all(&self.line)
    }

    /// Ends a replayable trace: the events since the last candidate and the result's hash;
    /// `running` is the run's time without its pauses.
    pub fn finish(&mut self, running: Duration, best: &[u8]) -> std::io::Result<()> {
        if let Some(replay) = &mut self.replay {
            let events = std::mem::take(&mut replay.pending);
            let line = EndLine {
                end: true,
                content_sha3: sha3_hex(best),
                size: best.len(),
                t: running.as_secs_f64(),
                events: &events,
            };
            self.write_line(&line)?;
        }
        Ok(())
    }

    /// Whether the trace records what a replay needs (the removed spans among it).
    pub fn is_replayable(&self) -> bool {
        self.replay.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_deltas_keep_their_bytes_through_json() {
        for (old, new) in [(&b"12345"[..], &b"1245"[..]), (b"\xff\xfe", b"\xff")] {
            let recorded = RecordedEvent {
                event: Event::Notice {
                    message: String::new(),
                },
                delta: Some(Delta::between(old, new)),
            };
            let json = serde_json::to_string(&recorded).unwrap();
            let back: RecordedEvent = serde_json::from_str(&json).unwrap();
            assert_eq!(back.delta.unwrap().apply(old).unwrap(), new);
        }
    }
}
