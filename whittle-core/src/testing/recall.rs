//! The edits that failed before, known by a signature of what they change and the bytes around
//! it ([`signature`]): a stage that runs again after other stages changed the text elsewhere can
//! skip the edits whose neighbourhood looks as it did when they failed. Unlike the outcome cache
//! (exact texts) this is a guess: an edit can become interesting when something far from it went away. So a schedule
//! skips them only while other stages still remove something, and runs every stage without
//! skipping before it ends (the result stays a fixed point of every stage).
//!
//! A case of several files keeps each file's recall across its sessions and can *hold* it
//! ([`Recall::hold`]): while other files still change, a file's session skips what failed
//! before in every run, its schedule's settling round included, leaves the stages that sweep
//! every token to the case's settling round ([`Recall::defer_stage`]), and the case settles
//! every file (sessions that skip nothing) once a round of such sessions changed nothing. A
//! file's first session *scouts* ([`Recall::scout`]): only its schedule's first stage runs.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;

use crate::tree::text::is_word_byte;

/// The signatures of the edits that were tested and not interesting, each with the run of a
/// stage in which it last failed, and whether they are skipped now.
#[derive(Debug, Default)]
pub struct Recall {
    failed: HashMap<u64, u64>,
    /// The stage run under way (counted by [`Recall::start_run`]).
    run: u64,
    /// A schedule's stage is running: failures are noted (elsewhere nothing is).
    recording: bool,
    skipping: bool,
    skipped: u64,
    /// Skipping in every run, whatever the schedule asks (a case settles later).
    held: bool,
    /// The run under way skips only because the recall is held.
    skipping_for_hold: bool,
    /// Edits skipped only because the recall was held: the schedule does not wait for them.
    held_skipped: u64,
    /// Stage runs left out only because the recall was held (see [`Recall::defer_stage`]).
    held_deferred: u64,
    /// The file's first session in a case of several files: only the schedule's first stage
    /// runs (see [`Recall::scout`]).
    scouting: bool,
}

impl Recall {
    /// A stage starts running: with `skipping`, it skips the edits known to have failed in an
    /// earlier run (not in this one: a run tries each of its edits at least once).
    /// While held, it skips them whatever `skipping` says.
    pub fn start_run(&mut self, skipping: bool) {
        self.run += 1;
        self.recording = true;
        self.skipping = skipping || self.held;
        self.skipping_for_hold = !skipping && self.held;
    }

    /// The run under way starts another pass over its edits (a tree stage's next walk to its
    /// fixed point): from now on it skips what failed in its earlier passes too.
    pub fn next_pass(&mut self) {
        if self.recording {
            self.run += 1;
        }
    }

    /// The stage's run ended: nothing is skipped until the next run that skips.
    pub fn end_run(&mut self) {
        self.recording = false;
        self.skipping = false;
        self.skipping_for_hold = false;
    }

    /// Holds the recall (or lets it go): while held every run skips what failed before, and
    /// what a run skips only for that is counted apart ([`Recall::held_skipped`]), so that a
    /// schedule still ends; whoever holds it must run the stages again without it.
    pub fn hold(&mut self, held: bool) {
        self.held = held;
    }

    /// Edits skipped so far only because the recall was held.
    pub fn held_skipped(&self) -> u64 {
        self.held_skipped
    }

    /// Whether the recall is held: other files of a case still change, and the case runs
    /// every file's stages to their end later.
    pub fn held(&self) -> bool {
        self.held
    }

    /// Makes the sessions scout (or not): a case of several files gives each file a first
    /// session in which only the schedule's first stage runs (the coarse tree walk, or the
    /// line pass), so that the large removals of every file come before any file's finer
    /// stages; what it leaves out counts as held back, and the file's later sessions run it.
    pub fn scout(&mut self, scouting: bool) {
        self.scouting = scouting;
    }

    /// While held, a stage that sweeps every token is not run at all: on a text that the
    /// other files' sessions still shrink most of its edits fail, and the case's settling
    /// round runs it to its end on the final set; while scouting, every stage but the first
    /// (`first`) is left out. Whether it is left out (then counted).
    pub fn defer_stage(&mut self, sweeps_tokens: bool, first: bool) -> bool {
        let deferred = (self.held && sweeps_tokens) || (self.scouting && !first);
        self.held_deferred += u64::from(deferred);
        deferred
    }

    /// Whether the sessions scout (see [`Recall::scout`]).
    pub fn scouting(&self) -> bool {
        self.scouting
    }

    /// What only the hold left out so far: edits skipped and stage runs not run. A session
    /// that adds to it has not reached its fixed point, and its case has to run it again
    /// without the hold.
    pub fn held_back(&self) -> u64 {
        self.held_skipped + self.held_deferred
    }

    /// Counts `edits` skipped, apart when only the hold skips them.
    fn count(&mut self, edits: u64) {
        if self.skipping_for_hold {
            self.held_skipped += edits;
        } else {
            self.skipped += edits;
        }
    }

    /// Whether a schedule's stage is running: its failures are noted.
    pub fn recording(&self) -> bool {
        self.recording
    }

    /// Whether the run under way skips what failed before (it runs on what is likely to pass).
    pub fn skipping(&self) -> bool {
        self.skipping
    }

    /// Whether an edit with `signature` is to be skipped now (counted as skipped if so).
    pub fn skips(&mut self, signature: u64) -> bool {
        let skip = self.skipping
            && self
                .failed
                .get(&signature)
                .is_some_and(|&run| run < self.run);
        self.count(u64::from(skip));
        skip
    }

    /// Counts `edits` that were skipped for another reason while skipping (the syntax guard's).
    pub fn count_skipped(&mut self, edits: u64) {
        self.count(edits);
    }

    /// Notes that an edit with `signature` was judged not interesting.
    pub fn note_failed(&mut self, signature: u64) {
        if self.recording {
            self.failed.insert(signature, self.run);
        }
    }

    /// Keeps the `edits` that are not skipped now, and returns the signatures of those kept
    /// (`signature` tells an edit's), for their window to give the tester, which notes those
    /// that fail ([`crate::testing::tester::CandidateSource::recall_signature`]); outside a schedule's stage run
    /// keeps all and returns none (nothing is noted then).
    pub fn retain_untried<T>(
        &mut self,
        edits: &mut Vec<T>,
        signature: impl Fn(&T) -> u64,
    ) -> Vec<u64> {
        if !self.recording {
            return Vec::new();
        }
        let mut signatures = Vec::with_capacity(edits.len());
        edits.retain(|edit| {
            let signature = signature(edit);
            let skip = self.skips(signature);
            if !skip {
                signatures.push(signature);
            }
            !skip
        });
        signatures
    }

    /// Edits skipped so far, apart from those skipped only because the recall was held (what
    /// a schedule waits for: its settling round tries them).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Every edit skipped so far, for whatever reason (the hold's too): what a stage reports.
    pub fn all_skipped(&self) -> u64 {
        self.skipped + self.held_skipped
    }
}

/// Tokens on each side of a change that make its neighbourhood (see [`signature`]).
pub const NEIGHBOURHOOD: usize = 6;

/// The signature of an edit of `text` by a stage that tells its edits by `key` (its name, and
/// what else sets its edits apart), by which the recall knows edits that failed before: each
/// change's new bytes and the shape of its replaced bytes and of up to [`NEIGHBOURHOOD`] tokens
/// on each side, on the lines the change touches (a neighbourhood ends at a line's end). In a
/// shape, blanks do not count and a word is only a name or a number (so a new indentation,
/// renames and merged names keep the signature, and edits of the same shape elsewhere share it);
/// where the change is does not count either (text before it may have gone), nor do the lines
/// around it: an edit is known again after the lines before and after it changed (on a list of
/// one record a line, the lines of a log, statements one a line, those are other records).
pub fn signature<'a>(
    key: impl Hash,
    text: &[u8],
    changes: impl IntoIterator<Item = (Range<usize>, &'a [u8])>,
) -> u64 {
    let mut hasher = DefaultHasher::new();
    key.hash(&mut hasher);
    for (range, new) in changes {
        let start = range.start.min(text.len());
        let end = range.end.clamp(start, text.len());
        let (from, to) = (tokens_before(text, start), tokens_after(text, end));
        for part in [&text[from..start], &text[start..end], &text[end..to]] {
            hash_shape(part, &mut hasher);
            0xffu8.hash(&mut hasher);
        }
        new.hash(&mut hasher);
    }
    hasher.finish()
}

/// A token for [`signature`]: a word, or one byte that is neither a word's nor a blank.
fn token_end(text: &[u8], at: usize) -> usize {
    let word = text[at..].iter().take_while(|&&b| is_word_byte(b)).count();
    at + word.max(1)
}

/// Where the [`NEIGHBOURHOOD`] tokens before `start` begin (at most at the start of its line).
fn tokens_before(text: &[u8], start: usize) -> usize {
    let mut at = start;
    for _ in 0..NEIGHBOURHOOD {
        while at > 0 && text[at - 1].is_ascii_whitespace() && text[at - 1] != b'\n' {
            at -= 1;
        }
        if at == 0 || text[at - 1] == b'\n' {
            break;
        }
        let word = text[..at]
            .iter()
            .rev()
            .take_while(|&&b| is_word_byte(b))
            .count();
        at -= word.max(1);
    }
    at
}

/// Where the [`NEIGHBOURHOOD`] tokens after `end` end (at most at the end of its line).
fn tokens_after(text: &[u8], end: usize) -> usize {
    let mut at = end;
    for _ in 0..NEIGHBOURHOOD {
        while at < text.len() && text[at].is_ascii_whitespace() && text[at] != b'\n' {
            at += 1;
        }
        if at == text.len() || text[at] == b'\n' {
            break;
        }
        at = token_end(text, at);
    }
    at
}

/// Hashes the tokens of `bytes` without blanks, each word as a name or a number, whichever it is.
fn hash_shape(bytes: &[u8], hasher: &mut DefaultHasher) {
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte.is_ascii_whitespace() {
            at += 1;
            continue;
        }
        let end = token_end(bytes, at);
        if !is_word_byte(byte) {
            byte.hash(hasher);
        } else if byte.is_ascii_digit() {
            0xfeu8.hash(hasher);
        } else {
            0xfdu8.hash(hasher);
        }
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_of_earlier_runs_are_skipped_only_while_skipping() {
        let mut recall = Recall::default();
        recall.note_failed(7);
        recall.start_run(true);
        assert!(
            !recall.skips(7),
            "noted outside a schedule's run: not at all"
        );
        recall.note_failed(7);
        assert!(!recall.skips(7), "failed in this run");
        recall.end_run();
        recall.start_run(false);
        assert!(!recall.skips(7), "not skipping");
        recall.start_run(true);
        assert!(recall.skips(7));
        assert!(!recall.skips(8));
        assert_eq!(recall.skipped(), 1);
    }

    #[test]
    fn a_new_pass_skips_the_failures_of_the_passes_before_it() {
        let mut recall = Recall::default();
        recall.next_pass();
        recall.start_run(true);
        recall.note_failed(7);
        assert!(!recall.skips(7), "failed in this pass");
        recall.next_pass();
        assert!(recall.skips(7));
        recall.end_run();
        // Outside a stage's run there are no passes: nothing noted is skipped.
        recall.next_pass();
        recall.start_run(false);
        recall.note_failed(8);
        recall.next_pass();
        assert!(!recall.skips(8), "not skipping");
    }

    #[test]
    fn a_held_recall_skips_in_every_run_and_counts_those_skips_apart() {
        let mut recall = Recall::default();
        recall.start_run(false);
        recall.note_failed(7);
        recall.end_run();
        recall.hold(true);
        recall.start_run(false);
        assert!(recall.skipping());
        assert!(recall.skips(7), "held: skipped though the schedule settles");
        recall.count_skipped(2);
        assert_eq!((recall.skipped(), recall.held_skipped()), (0, 3));
        assert_eq!(recall.all_skipped(), 3);
        recall.end_run();
        recall.start_run(true);
        assert!(recall.skips(7));
        assert_eq!(
            (recall.skipped(), recall.held_skipped()),
            (1, 3),
            "the schedule's own skips count as before"
        );
        recall.hold(false);
        recall.start_run(false);
        assert!(!recall.skips(7));
        assert_eq!((recall.skipped(), recall.held_skipped()), (1, 3));
    }

    #[test]
    fn a_held_recall_defers_only_the_stages_that_sweep_every_token() {
        let mut recall = Recall::default();
        assert!(
            !recall.defer_stage(true, false),
            "not held: every stage runs"
        );
        recall.hold(true);
        assert!(
            !recall.defer_stage(false, false),
            "a stage with few edits runs"
        );
        assert!(recall.defer_stage(true, false));
        assert!(recall.defer_stage(true, false));
        assert_eq!(recall.held_back(), 2, "what the hold left out is counted");
        recall.start_run(false);
        recall.note_failed(7);
        recall.end_run();
        recall.start_run(false);
        assert!(recall.skips(7));
        assert_eq!(recall.held_back(), 3, "skipped edits count too");
        recall.hold(false);
        assert!(!recall.defer_stage(true, false), "let go: it runs again");
        assert_eq!(recall.held_back(), 3);
    }

    /// A scouting session runs only the schedule's first stage; the others count as held back.
    #[test]
    fn a_scouting_recall_defers_every_stage_but_the_first() {
        let mut recall = Recall::default();
        recall.scout(true);
        assert!(!recall.defer_stage(false, true), "the first stage runs");
        assert!(
            !recall.defer_stage(true, true),
            "even one that sweeps every token"
        );
        assert!(recall.defer_stage(false, false));
        assert!(recall.defer_stage(true, false));
        assert_eq!(recall.held_back(), 2);
        recall.scout(false);
        assert!(
            !recall.defer_stage(false, false),
            "the later sessions run it"
        );
    }

    #[test]
    fn an_edit_is_known_by_the_shape_of_its_neighbourhood() {
        let delete = |text: &str, word: &str| {
            let at = text.find(word).unwrap();
            signature("tokens", text.as_bytes(), [(at..at + word.len(), &b""[..])])
        };
        // Far from the edit, names renamed or merged, a new indentation: the same signature.
        let far = "u = 1; v = 2; w = 3; f(x, y);";
        let renamed = "q=9;  a_long_name = 1;\t    g(a, a);";
        assert_eq!(delete(far, ", y"), delete(renamed, ", a"));
        // Other tokens, other stages and other new texts differ.
        assert_ne!(
            delete(far, ", y"),
            delete("u = 1; v = 2; w = 3; f(x; y);", "; y")
        );
        assert_ne!(
            delete(far, ", y"),
            delete("u = 1; v = 2; w = 3; f(x, y, z);", ", y")
        );
        // Only the change's lines count: the lines around it may change.
        let list = "tests/a-8.mjs\ntests/a-10.mjs\nz";
        let shorter = "t\ntests/a-10.mjs\n";
        assert_eq!(delete(list, "-10"), delete(shorter, "-10"));
        assert_ne!(delete(list, "-10"), delete("tests/a-10.mjs-", "-10"));
        let edit = |stage: &str, new: &[u8]| signature(stage, b"f(x)", [(2..3, new)]);
        assert_ne!(edit("tokens", b""), edit("rename", b""));
        assert_ne!(edit("tokens", b""), edit("tokens", b"0"));
    }
}
